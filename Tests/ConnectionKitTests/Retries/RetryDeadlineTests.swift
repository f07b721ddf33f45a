import ConnectionKit
import ConnectionKitTesting
import Foundation
import Testing

/// The policy's overall `deadline` bounds all attempts and waits together.
@Suite(.exclusive) struct RetryDeadlineTests {
    @Test func theDeadlineCutsAnAttemptShort() throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/silent") { _ in TestResponse(fault: .neverRespond) }
        let request = RetryingRequest(
            server.url("/silent"), policy: testPolicy(attempts: 5, deadline: 0.5), timeout: 30)
        let ending = run(request)
        #expect(ending?.error?.isTimedOut == true)
        #expect(server.hits("/silent") == 1)
        let duration = request.duration ?? 0
        #expect(duration >= 0.5 - clockTolerance && duration <= 0.5 + schedulingSlack, "\(duration)")
    }

    @Test func noWaitOutlastsTheDeadline() throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/busy") { _ in .status(503) }
        // Waits of 0.25 s within 0.9 s: attempts at about 0, 0.25, 0.5 (and 0.75 if the machine is quick);
        // then the next wait would end past the deadline, so the request fails at once with the last error.
        let request = RetryingRequest(
            server.url("/busy"), policy: testPolicy(attempts: 100, backoff: 0.25, deadline: 0.9))
        let ending = run(request)
        let hits = server.hits("/busy")
        // 1 only when a loaded machine makes the first attempt outlast the deadline.
        #expect((1...4).contains(hits), "\(hits) attempts")
        expectGaps(gaps(server, "/busy"), within: Array(repeating: 0.25...0.25, count: max(0, hits - 1)))
        if ending?.error?.statusCode == 503 {
            #expect(
                (request.duration ?? 99) <= 0.9 + clockTolerance,
                "failed before the deadline rather than waiting for it")
        } else {
            // On a loaded machine an attempt may still be running when the deadline passes.
            #expect(ending?.error?.isTimedOut == true)
            #expect((request.duration ?? 99) <= 0.9 + schedulingSlack)
        }
    }

    @Test func timeoutsRetriedUntilTheDeadline() throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/silent") { _ in TestResponse(fault: .neverRespond) }
        var policy = RetryPolicy.retryOnTimeout(times: 100)
        policy.initialBackoff = 0.05
        policy.backoffMultiplier = 1
        policy.jitter = 0
        policy.deadline = 1.2
        let request = RetryingRequest(server.url("/silent"), policy: policy, timeout: 0.3)
        let ending = run(request)
        #expect(ending?.error?.isTimedOut == true)
        let hits = server.hits("/silent")
        #expect((1...4).contains(hits), "\(hits) attempts")
        expectGaps(gaps(server, "/silent"), within: Array(repeating: 0.35...0.35, count: max(0, hits - 1)))
        #expect((request.duration ?? 99) <= 1.2 + schedulingSlack)
    }
}
