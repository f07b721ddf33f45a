import ConnectionKitTesting
import Foundation
import Testing

@testable import ConnectionKit

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A one-off request (`DownloadRequest(from:to:)`, `BasicConnectionRequest(request:)`) sets the hooks a
/// one-off use needs on the instance, without a subclass; a subclass's override still decides.
@Suite("Hooks set on one instance", .offThePool, .timeLimit(.minutes(1)))
struct InstanceSettingsTests {
    /// Overrides every hook that `instanceSettings` can set.
    final class Overriding: BasicConnectionRequest, @unchecked Sendable {
        override var progressInterval: TimeInterval { 7 }
        override var timeoutInterval: TimeInterval { 8 }
        override var retryPolicy: RetryPolicy { .retryOnTimeout(times: 9) }
        override var requestHeaderFields: [String: String] { ["X-Class": "yes"] }
    }

    @Test("each hook returns its default until set, then the value set on the instance")
    func hooksReadTheInstanceSettings() {
        let request = BasicConnectionRequest()
        #expect(request.progressInterval == 0.1 && request.timeoutInterval == 60)
        #expect(request.retryPolicy == .none && request.requestHeaderFields.isEmpty)
        request.instanceSettings.progressInterval = 0.5
        request.instanceSettings.timeoutInterval = 5
        request.instanceSettings.retryPolicy = .default
        request.instanceSettings.requestHeaderFields = ["X-Trace": "1"]
        #expect(request.progressInterval == 0.5 && request.timeoutInterval == 5)
        #expect(request.retryPolicy == .default && request.requestHeaderFields == ["X-Trace": "1"])

        let overriding = Overriding()
        overriding.instanceSettings.progressInterval = 0.5
        overriding.instanceSettings.timeoutInterval = 5
        #expect(overriding.progressInterval == 7 && overriding.timeoutInterval == 8)
        #expect(overriding.retryPolicy == .retryOnTimeout(times: 9))
        #expect(overriding.requestHeaderFields == ["X-Class": "yes"])
    }

    @Test("DownloadRequest(from:to:) with progressInterval set to an hour reports a dripped body at most twice")
    func progressIntervalSetOnADownload() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/drip") { _ in
            TestResponse(body: .drip(Data(repeating: 65, count: 20 * 512), chunkSize: 512, interval: 0.05))
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("instance-settings-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let download = DownloadRequest(from: server.url("/drip"), to: folder.appendingPathComponent("body"))
        download.instanceSettings.progressInterval = 3600
        download.callbackQueue = testCallbackQueue
        let reports = Locked<[TransferProgress]>([])
        download.progressHandler = { progress in
            if progress.direction == .download { reports.withLock { $0.append(progress) } }
        }
        _ = try await download.value()
        let received = reports.withLock { $0 }
        // With the default (0.1 s) the same second of dripping is reported about ten times.
        #expect(received.count <= 2, "\(received.map(\.completedBytes))")
        let bodySize: Int64 = 20 * 512
        #expect(received.last.map { $0.completedBytes == bodySize } == true, "\(received)")
    }

    @Test("BasicConnectionRequest sends the header fields and times out after the timeout set on the instance")
    func headersAndTimeoutSetOnABasicRequest() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/echo") { request in .text(request.header("X-Trace") ?? "none") }
        server.route("/hang") { _ in TestResponse(fault: .neverRespond) }

        let echo = BasicConnectionRequest(request: URLRequest(url: server.url("/echo")))
        echo.instanceSettings.requestHeaderFields = ["X-Trace": "one-off"]
        echo.callbackQueue = testCallbackQueue
        #expect(try await echo.value() == Data("one-off".utf8))

        let hang = BasicConnectionRequest(request: URLRequest(url: server.url("/hang")))
        hang.instanceSettings.timeoutInterval = 0.3
        hang.callbackQueue = testCallbackQueue
        let error = try await within(20, "the timeout set on the instance") {
            await #expect(throws: ConnectionError.self) { try await hang.value() }
        }
        #expect(error?.kind == .timedOut)
    }

    @Test("a retry policy set on the instance retries a 503")
    func retryPolicySetOnTheInstance() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        let hits = Locked(0)
        server.route("/flaky") { _ in
            let count = hits.withLock { count in
                count += 1
                return count
            }
            return count == 1 ? .status(503) : .text("second")
        }
        let request = BasicConnectionRequest(request: URLRequest(url: server.url("/flaky")))
        var policy = RetryPolicy.default
        policy.initialBackoff = 0.01
        policy.jitter = 0
        request.instanceSettings.retryPolicy = policy
        request.callbackQueue = testCallbackQueue
        #expect(try await request.value() == Data("second".utf8))
        #expect(server.hits("/flaky") == 2)
    }
}
