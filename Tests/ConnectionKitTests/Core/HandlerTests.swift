import ConnectionKit
import ConnectionKitTesting
import Foundation
import Testing

@Suite("Handlers")
struct HandlerTests {
    @Test("completion, failure and progress handlers run on the given callbackQueue")
    func callbackQueue() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/ok") { _ in TestResponse(body: .data(Data(repeating: 3, count: 300_000))) }
        server.route("/fail") { _ in .status(500) }
        let queue = DispatchQueue(label: "HandlerTests.queue")
        let key = DispatchSpecificKey<String>()
        queue.setSpecific(key: key, value: "mine")

        let seen = Locked<[String]>([])
        @Sendable func queueName() -> String { DispatchQueue.getSpecific(key: key) ?? "other" }
        let success = FetchData(server.url("/ok"))
        success.callbackQueue = queue
        success.progressHandler = { _ in seen.withLock { $0.append("progress:" + queueName()) } }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            success.completionHandler = { _ in
                seen.withLock { $0.append("completion:" + queueName()) }
                continuation.resume()
            }
            success.failureHandler = { _ in
                seen.withLock { $0.append("unexpected failure:" + queueName()) }
                continuation.resume()
            }
            success.start()
        }

        let failure = FetchData(server.url("/fail"))
        failure.callbackQueue = queue
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            failure.completionHandler = { _ in
                seen.withLock { $0.append("unexpected completion:" + queueName()) }
                continuation.resume()
            }
            failure.failureHandler = { _ in
                seen.withLock { $0.append("failure:" + queueName()) }
                continuation.resume()
            }
            failure.start()
        }
        await queue.drain()

        let labels = seen.withLock { $0 }
        #expect(labels.contains("completion:mine"))
        #expect(labels.contains("failure:mine"))
        #expect(labels.contains { $0.hasPrefix("progress:") })
        #expect(labels.allSatisfy { $0.hasSuffix(":mine") }, "\(labels)")
    }

    @Test("handlers run on the main queue by default")
    func mainQueueByDefault() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/ok") { _ in .text("ok") }
        let request = FetchData(server.url("/ok"))
        // Under `swift test` on Linux the main queue is serviced by dispatchMain() on a worker thread, so
        // identify it by a queue-specific value rather than Thread.isMainThread.
        let key = DispatchSpecificKey<String>()
        DispatchQueue.main.setSpecific(key: key, value: "main")
        let onMain: Bool = await withCheckedContinuation { continuation in
            request.completionHandler = { _ in
                continuation.resume(returning: DispatchQueue.getSpecific(key: key) == "main")
            }
            request.failureHandler = { _ in continuation.resume(returning: false) }
            request.start()
        }
        #expect(onMain)
    }

    @Test("download progress is monotonic and ends at 1.0")
    func progress() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/big") { _ in TestResponse(body: .generated(length: 4_000_000, seed: 1)) }
        let request = FetchData(server.url("/big"))
        let reports = Locked<[TransferProgress]>([])
        request.progressHandler = { progress in reports.withLock { $0.append(progress) } }
        let endings = Endings(request)
        request.start()
        let data = try await endings.value()
        #expect(data.count == 4_000_000)
        let downloads = reports.withLock { $0 }.filter { $0.direction == .download }
        #expect(!downloads.isEmpty)
        #expect(zip(downloads, downloads.dropFirst()).allSatisfy { $0.completedBytes <= $1.completedBytes })
        #expect(downloads.last?.fractionCompleted == 1.0)
        #expect(downloads.allSatisfy { ($0.fractionCompleted ?? 0) <= 1 && ($0.fractionCompleted ?? 0) >= 0 })
    }
}
