import ConnectionKit
import ConnectionKitTesting
import Foundation
import Testing

@Suite("Handlers", .offThePool, .timeLimit(.minutes(2)))
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
        success.progressHandler = { _ in seen.withLock { $0.append("progress:" + queueName()) } }
        let failure = FetchData(server.url("/fail"))
        let endings = EndingRecorder()
        endings.track(
            success, queue: queue, onFirstEnding: { seen.withLock { $0.append("success ended:" + queueName()) } })
        endings.track(
            failure, queue: queue, onFirstEnding: { seen.withLock { $0.append("failure ended:" + queueName()) } })
        success.start()
        failure.start()
        #expect(await endings.ended(within: 15))
        guard case .success? = endings.first(of: success) else {
            Issue.record("expected a completion, got \(String(describing: endings.first(of: success)))")
            return
        }
        guard case .failure? = endings.first(of: failure) else {
            Issue.record("expected a failure, got \(String(describing: endings.first(of: failure)))")
            return
        }

        let labels = seen.withLock { $0 }
        #expect(labels.contains("success ended:mine"))
        #expect(labels.contains("failure ended:mine"))
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
        let onMain = Locked<Bool?>(nil)
        let endings = EndingRecorder()
        endings.track(
            request, onFirstEnding: { onMain.withLock { $0 = DispatchQueue.getSpecific(key: key) == "main" } })
        request.start()
        #expect(await endings.ended(within: 15))
        guard case .success? = endings.first(of: request) else {
            Issue.record("expected a completion, got \(String(describing: endings.first(of: request)))")
            return
        }
        #expect(onMain.withLock { $0 } == true)
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
