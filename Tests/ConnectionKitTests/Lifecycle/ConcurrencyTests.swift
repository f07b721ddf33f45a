import ConnectionKit
import ConnectionKitTesting
import Foundation
import Testing

/// Hundreds of runs each, on clients of their own: in the shared client's history (1,000 runs) they would
/// push out the records that tests running beside them look for.
private final class RaceRequest: FetchData, @unchecked Sendable {  // Safe: no state of its own.
    static let client = ConnectionClient.ownForTests(label: "races")
    override var client: ConnectionClient { Self.client }
}
private final class ConcurrentRequest: FetchData, @unchecked Sendable {  // Safe: no state of its own.
    static let client = ConnectionClient.ownForTests(label: "concurrent")
    override var client: ConnectionClient { Self.client }
}

@Suite("Exactly one ending under concurrency", .offThePool, .timeLimit(.minutes(20)))
struct ConcurrencyTests {
    @Test("500 concurrent requests all end exactly once", .exclusive)
    func fiveHundredConcurrent() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/item") { request in .text(request.query ?? "") }
        let queue = DispatchQueue(label: "ConcurrencyTests.500")
        let endings = EndingRecorder()
        let requests = (0..<500).map { ConcurrentRequest(server.url("/item?n=\($0)")) }
        requests.forEach { endings.track($0, queue: queue) }
        // Work on several threads: not on the test's pool thread (see `onOwnThread`).
        await onOwnThread {
            DispatchQueue.concurrentPerform(iterations: requests.count) { requests[$0].start() }
        }
        // Also records an issue for any request that ends twice, within the settle window.
        #expect(await endings.ended(within: 60))
        #expect(endings.allCounts.allSatisfy { $0 == 1 })
        #expect(summary(of: requests, in: endings) == ["completed": 500])
        #expect(server.hits("/item") == 500)
        #expect(ConcurrentRequest.client.registry.requests(of: ConcurrentRequest.self).isEmpty)
    }

    @Test("1,000 randomised cancel/complete races each end exactly once", .exclusive)
    func cancelCompleteRaces() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/race") { _ in .text("done") }
        let queue = DispatchQueue(label: "ConcurrencyTests.races")
        let endings = EndingRecorder()
        let requests = (0..<1000).map { _ in RaceRequest(server.url("/race")) }
        requests.forEach { endings.track($0, queue: queue) }
        // Work on several threads: not on the test's pool thread (see `onOwnThread`).
        await onOwnThread {
            DispatchQueue.concurrentPerform(iterations: requests.count) { index in
                let request = requests[index]
                request.start()
                // Cancel at a random moment: at once, soon, or after the response probably arrived.
                switch index % 4 {
                case 0: request.cancel()
                case 1: DispatchQueue.global().async { request.cancel() }
                case 2:
                    DispatchQueue.global().asyncAfter(deadline: .now() + .microseconds(Int.random(in: 0...20_000))) {
                        request.cancel()
                    }
                default: break  // completes
                }
            }
        }
        #expect(await endings.ended(within: 60))
        #expect(endings.allCounts.allSatisfy { $0 == 1 })
        let summary = summary(of: requests, in: endings)
        #expect(summary.keys.allSatisfy { $0 == "completed" || $0 == "cancelled" }, "\(summary)")
        #expect(summary.values.reduce(0, +) == 1000)
        // Both endings are exercised: a quarter are cancelled right after start() and a quarter never are, but
        // a thread preempted between the two calls lets a loopback answer end its run first.
        #expect((summary["cancelled"] ?? 0) >= 200)
        #expect((summary["completed"] ?? 0) >= 200)
        #expect(RaceRequest.client.registry.requests(of: RaceRequest.self).isEmpty)
        #expect(requests.allSatisfy { $0.state == .finished || $0.state == .cancelled })
    }
}

/// How many endings of each kind (completed, cancelled, or the failure) the requests had.
private func summary(of requests: [FetchData], in endings: EndingRecorder) -> [String: Int] {
    var outcomes: [String: Int] = [:]
    for result in requests.flatMap({ endings.results($0) }) {
        switch result {
        case .success: outcomes["completed", default: 0] += 1
        case .failure(let error as ConnectionError) where error.isCancelled: outcomes["cancelled", default: 0] += 1
        case .failure(let error): outcomes["failed: \(error)", default: 0] += 1
        }
    }
    return outcomes
}
