import ConnectionKit
import ConnectionKitTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A write that gives up after one second without a byte.
final class ImpatientNote: ConnectionRequest<Data>, @unchecked Sendable {
    // Safe: immutable stored properties only.
    let target: URL

    init(target: URL) {
        self.target = target
        super.init()
    }

    override var url: URL? { target }
    override var httpMethod: HTTPMethod { .post }
    override var bodyData: Data? { Data("impatient".utf8) }
    override var timeoutInterval: TimeInterval { 1 }
}

@Suite("OfflineQueue timeouts", .offThePool, .exclusive, .timeLimit(.minutes(10)))
struct OfflineTimeoutTests {
    @Test("a timeout before any response queues the request; a timeout after the headers fails it normally")
    func timeoutBeforeAndAfterResponse() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("POST", "/silent") { _ in TestResponse(fault: .neverRespond) }
        server.route("POST", "/stalling") { _ in
            TestResponse(body: .drip(Data("slow body".utf8), chunkSize: 1, interval: 5))
        }
        let directory = OfflineFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let queue = try OfflineQueue(directory: directory, configuration: OfflineFixtures.configuration(offline: 60))
        defer { queue.close() }
        queue.suspend()
        let outcomes = Collector<String>()

        let silent = ImpatientNote(target: server.url("/silent"))
        silent.callbackQueue = DispatchQueue(label: "OfflineTimeoutTests")
        silent.failureHandler = { error in outcomes.append("failed: \(error)") }
        silent.start(via: queue) { operation in outcomes.append("queued \(operation.url.path)") }
        await outcomes.wait(for: 1)

        let stalling = ImpatientNote(target: server.url("/stalling"))
        stalling.callbackQueue = DispatchQueue(label: "OfflineTimeoutTests")
        stalling.failureHandler = { error in
            outcomes.append((error as? ConnectionError)?.isTimedOut == true ? "timed out" : "failed: \(error)")
        }
        stalling.start(via: queue) { operation in outcomes.append("queued \(operation.url.path)") }
        await outcomes.wait(for: 2)

        #expect(outcomes.all == ["queued /silent", "timed out"])
        #expect(queue.pending.map(\.url.path) == ["/silent"])
    }
}
