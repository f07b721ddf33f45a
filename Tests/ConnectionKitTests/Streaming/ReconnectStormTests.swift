import ConnectionKitTesting
import Foundation
import Testing

@testable import ConnectionKit

/// A server that drops every connection, or asks for absurd `retry` times, sets neither the pace nor
/// the end of an event stream's reconnections (issue 30): `retry` has a floor and a cap, and
/// connections that drop in a row back off.
@Suite("Server-sent events: a server cannot storm or park the reconnections", .offThePool, .timeLimit(.minutes(2)))
struct ReconnectStormTests {
    /// Runs `request` to its end (the policy's deadline) and returns the server's hits on `/feed`.
    private func hits(after request: Feed, on server: TestServer) async -> Int {
        _ = try? await request.value()
        return server.hits("/feed")
    }

    @Test("retry: 0 and a drop after every event reconnect a handful of times in 30 s, not thousands")
    func retryZeroDoesNotStorm() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/feed") { _ in .eventStream(["retry: 0\ndata: x\n\n"], thenDrop: true) }
        // Every connection brings an event, so the policy's attempts never run out: only the floor
        // and the backoff of brief connections pace the reconnections (0.5, 1, 2, 4, 8, 16 s apart: 7
        // connections in 30 s). The deadline leaves a slow first connection (ThreadSanitizer, load, the
        // awaiting task's jobs behind every other test's on the cooperative pool) room for a reconnection.
        let policy = RetryPolicy(maximumAttempts: 3, initialBackoff: 0, jitter: 0, deadline: 30)
        let count = await hits(after: Feed(server.url("/feed"), policy: policy), on: server)
        #expect(count >= 2, "it does reconnect")
        #expect(count <= 8, "\(count) connections in 30 s")
    }

    @Test("a retry past Int.max is cut to the policy's longest wait instead of parking the stream")
    func hugeRetryIsCapped() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        let retry = "retry: 99999999999999999999999999\ndata: x\n\n"
        let connections = DispatchSemaphore(value: 0)
        server.route("/feed") { _ in
            connections.signal()
            return .eventStream([retry], thenDrop: true)
        }
        // The longest wait is 1 s here (60 s by default). A parked stream never connects again; a capped
        // one does, however slow its first connection was (no deadline counts it).
        let policy = RetryPolicy(
            maximumAttempts: 1000, initialBackoff: 0.1, maximumBackoff: 1, jitter: 0, maximumRetryAfter: 1)
        let request = Feed(server.url("/feed"), policy: policy)
        let run = Task { try? await request.value() }
        let reconnected = await onOwnThread {
            let deadline = DispatchTime.now() + 60
            return connections.wait(timeout: deadline) == .success && connections.wait(timeout: deadline) == .success
        }
        request.cancel()
        _ = await run.value
        #expect(reconnected, "no second connection within 60 s: the stream is parked")
        #expect(request.reconnectionTime ?? 0 > 1e15, "the server's value stays readable as it was sent")
    }

    @Test("a connection that stayed open resets the backoff; a retry past Int.max waits the longest wait")
    func backoffGrowsOnlyForBriefConnections() {
        let policy = RetryPolicy(initialBackoff: 0.5, jitter: 0)
        var backoff = ReconnectionBackoff(minimum: 0.5)
        let brief = (1...4).map { _ in backoff.wait(policyWait: 0, serverRetry: 0, connected: 0.1, policy: policy) }
        #expect(brief == [0.5, 1, 2, 4])
        #expect(backoff.wait(policyWait: 0, serverRetry: 0, connected: 30, policy: policy) == 0.5)
        #expect(backoff.wait(policyWait: 0, serverRetry: Int.max, connected: 30, policy: policy) == 60)
        #expect(backoff.wait(policyWait: 0, serverRetry: nil, connected: nil, policy: policy) == 0.5)
    }
}
