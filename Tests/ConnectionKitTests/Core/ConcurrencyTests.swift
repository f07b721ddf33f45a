import ConnectionKit
import ConnectionKitTesting
import Foundation
import Testing

/// Counts the endings of many requests, and reports when all have ended at least once.
final class EndingCounter: Sendable {
    private struct State {
        var counts: [ObjectIdentifier: Int] = [:]
        var outcomes: [String: Int] = [:]
        var allEnded: (@Sendable () -> Void)?
    }

    private let state = Locked(State())
    private let expected: Int

    init(expected: Int) { self.expected = expected }

    func attach(_ request: FetchData, queue: DispatchQueue) {
        let id = ObjectIdentifier(request)
        request.callbackQueue = queue
        request.completionHandler = { [self] _ in record(id, "completed") }
        request.failureHandler = { [self] error in
            let kind = (error as? ConnectionError)?.isCancelled == true ? "cancelled" : "failed: \(error)"
            record(id, kind)
        }
    }

    private func record(_ id: ObjectIdentifier, _ outcome: String) {
        let done: (@Sendable () -> Void)? = state.withLock { state in
            state.counts[id, default: 0] += 1
            state.outcomes[outcome, default: 0] += 1
            guard state.counts.count == expected else { return nil }
            defer { state.allEnded = nil }
            return state.allEnded
        }
        done?()
    }

    /// Waits until every request ended at least once, or `timeout`; returns whether they all did.
    func waitForAll(timeout: TimeInterval) async -> Bool {
        await waitForSignal(timeout: timeout) { signal in
            let now = state.withLock { state -> Bool in
                if state.counts.count == expected { return true }
                state.allEnded = signal
                return false
            }
            if now { signal() }
        }
    }

    /// Requests that ended more than once.
    var doubled: Int { state.withLock { $0.counts.values.filter { $0 > 1 }.count } }

    /// How many endings of each kind.
    var summary: [String: Int] { state.withLock { $0.outcomes } }
}

private final class RaceRequest: FetchData, @unchecked Sendable {}
private final class ConcurrentRequest: FetchData, @unchecked Sendable {}

@Suite("Exactly one ending under concurrency")
struct ConcurrencyTests {
    @Test("500 concurrent requests all end exactly once", .exclusive)
    func fiveHundredConcurrent() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/item") { request in .text(request.query ?? "") }
        let queue = DispatchQueue(label: "ConcurrencyTests.500")
        let counter = EndingCounter(expected: 500)
        let requests = (0..<500).map { ConcurrentRequest(server.url("/item?n=\($0)")) }
        requests.forEach { counter.attach($0, queue: queue) }
        DispatchQueue.concurrentPerform(iterations: requests.count) { requests[$0].start() }
        #expect(await counter.waitForAll(timeout: 60))
        await queue.drain()
        #expect(counter.doubled == 0)
        #expect(counter.summary == ["completed": 500])
        #expect(server.hits("/item") == 500)
        #expect(ConnectionRegistry.shared.requests(of: ConcurrentRequest.self).isEmpty)
    }

    @Test("1,000 randomised cancel/complete races each end exactly once", .exclusive)
    func cancelCompleteRaces() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/race") { _ in .text("done") }
        let queue = DispatchQueue(label: "ConcurrencyTests.races")
        let counter = EndingCounter(expected: 1000)
        let requests = (0..<1000).map { _ in RaceRequest(server.url("/race")) }
        requests.forEach { counter.attach($0, queue: queue) }
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
        #expect(await counter.waitForAll(timeout: 60))
        await queue.drain()
        #expect(counter.doubled == 0)
        let summary = counter.summary
        #expect(summary.keys.allSatisfy { $0 == "completed" || $0 == "cancelled" }, "\(summary)")
        #expect(summary.values.reduce(0, +) == 1000)
        #expect((summary["cancelled"] ?? 0) >= 250)
        #expect((summary["completed"] ?? 0) >= 250)
        #expect(ConnectionRegistry.shared.requests(of: RaceRequest.self).isEmpty)
        #expect(requests.allSatisfy { $0.state == .finished || $0.state == .cancelled })
    }
}
