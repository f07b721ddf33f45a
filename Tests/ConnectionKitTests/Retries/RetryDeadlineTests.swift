import ConnectionKit
import ConnectionKitTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Records when each retry wait was decided and how long it is (the decision comes just before the
/// wait is scheduled, so a wait ends no earlier than `decidedAt + delay`).
final class DecisionRecordingRequest: RetryingRequest, @unchecked Sendable {
    let decisions = Locked<[(decidedAt: Date, delay: TimeInterval)]>([])

    override func retryDecision(for error: ConnectionError, attempt: Int, response: ConnectionResponse?)
        -> RetryDecision
    {
        let decidedAt = Date()
        let decision = super.retryDecision(for: error, attempt: attempt, response: response)
        if case .retry(let delay) = decision { decisions.withLock { $0.append((decidedAt, delay)) } }
        return decision
    }
}

/// The policy's overall `deadline` bounds all attempts and waits together.
@Suite(.offThePool, .exclusive, .timeLimit(.minutes(20))) struct RetryDeadlineTests {
    @Test func theDeadlineCutsAnAttemptShort() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/silent") { _ in TestResponse(fault: .neverRespond) }
        let request = RetryingRequest(
            server.url("/silent"), policy: testPolicy(attempts: 5, deadline: 0.5), timeout: 30)
        let ending = await run(request)
        #expect(ending?.error?.isTimedOut == true)
        #expect(server.hits("/silent") == 1)
        let duration = request.duration ?? 0
        #expect(duration >= 0.5 - clockTolerance && duration <= 0.5 + schedulingSlack, "\(duration)")
    }

    @Test func noWaitOutlastsTheDeadline() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/busy") { _ in .status(503) }
        // Waits of 0.25 s within 0.9 s: attempts at about 0, 0.25, 0.5 (and 0.75 if the machine is quick);
        // then the next wait would end past the deadline, so the request fails at once with the last error.
        let request = DecisionRecordingRequest(
            server.url("/busy"), policy: testPolicy(attempts: 100, backoff: 0.25, deadline: 0.9))
        let ending = await run(request)
        let hits = server.hits("/busy")
        // A wait that would end past the deadline must never be scheduled (the request fails at once
        // instead), whichever way the run ended. `dateStarted` is set just before the deadline is armed.
        let deadline = (request.dateStarted ?? .distantPast).addingTimeInterval(0.9 + clockTolerance)
        let crossing = request.decisions.withLock { $0 }.filter { $0.decidedAt.addingTimeInterval($0.delay) > deadline }
        // 1 only when a loaded machine makes the first attempt outlast the deadline.
        #expect((1...4).contains(hits), "\(hits) attempts")
        expectGaps(gaps(server, "/busy"), within: Array(repeating: 0.25...0.25, count: max(0, hits - 1)))
        if ending?.error?.statusCode == 503 {
            #expect(
                (request.duration ?? 99) <= 0.9 + clockTolerance,
                "failed before the deadline rather than waiting for it")
            #expect(crossing.count <= 1, "only the last decision may cross the deadline, and it was not waited out")
        } else {
            // On a loaded machine an attempt may still be running when the deadline passes: then no wait
            // crossed it. A wait scheduled past the deadline (the bug) ends here too, but is seen above.
            #expect(ending?.error?.isTimedOut == true)
            #expect((request.duration ?? 99) <= 0.9 + schedulingSlack)
            #expect(crossing.isEmpty, "a wait of \(crossing.map(\.delay)) s was scheduled past the deadline")
        }
    }

    @Test func timeoutsRetriedUntilTheDeadline() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/silent") { _ in TestResponse(fault: .neverRespond) }
        var policy = RetryPolicy.retryOnTimeout(times: 100)
        policy.initialBackoff = 0.05
        policy.backoffMultiplier = 1
        policy.jitter = 0
        policy.deadline = 1.2
        let request = DecisionRecordingRequest(server.url("/silent"), policy: policy, timeout: 0.3)
        let ending = await run(request)
        #expect(ending?.error?.isTimedOut == true)
        let hits = server.hits("/silent")
        #expect((1...4).contains(hits), "\(hits) attempts")
        // Measured on the client, between the timeouts that decided the retries: each is the 0.05 s wait
        // plus the next attempt's 0.3 s idle timeout (timers fire late on a loaded machine, never early).
        let decided = request.decisions.withLock { $0 }.map(\.decidedAt)
        // One per retry, and perhaps a last one whose wait would have crossed the deadline (not taken).
        #expect((max(0, hits - 1)...hits).contains(decided.count), "\(decided.count) decisions, \(hits) attempts")
        let decisionGaps = zip(decided.dropFirst(), decided).map { $0.timeIntervalSince($1) }
        expectGaps(decisionGaps, within: Array(repeating: 0.35...0.35, count: max(0, decided.count - 1)))
        #expect((request.duration ?? 99) <= 1.2 + schedulingSlack)
    }
}
