import ConnectionKit
import ConnectionKitTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A cached GET whose retry policy bounds the whole run.
final class DeadlineFetch: CachedFetch, @unchecked Sendable {
    // Safe: only immutable stored properties.
    let policyOfRetries: RetryPolicy

    init(_ target: URL, client: ConnectionClient, policy: HTTPCachePolicy?, retries: RetryPolicy) {
        self.policyOfRetries = retries
        super.init(target, client: client, policy: policy)
    }

    override var retryPolicy: RetryPolicy { policyOfRetries }
}

/// The retry policy's overall deadline and the cache: a run the deadline ends answers from the cache
/// as a run the retry policy gives up on does. Loopback, both transports.
@Suite("The HTTP cache when the retry policy's deadline passes", .offThePool, .timeLimit(.minutes(2)))
struct HTTPCacheDeadlineTests {
    static let client = ConnectionClient.ownForTests(label: "cache-deadline", httpCache: .inMemory())

    /// How long the server holds a request it must not answer: far beyond the deadline (1 s), so that
    /// only the deadline can end the run in time.
    static let held: TimeInterval = 30

    @Test(
        "offline first: a transfer still waiting when the deadline passes is stopped and the stale stored response answers"
    )
    func deadlineDuringTransferAnswersFromCache() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        let gate = OpenableGate(timeout: Self.held)
        defer { gate.open() }
        let body = HTTPCacheWireTests.randomBody()
        let stored = Locked(false)
        server.route("/slow") { _ in
            if stored.withLock({ $0 }) { gate.pass() }
            return HTTPCacheWireTests.response(body, ["Cache-Control": "max-age=0", "ETag": "\"s1\""])
        }
        let url = server.url("/slow")
        #expect(try await CachedFetch(url, client: Self.client, policy: .offlineFirst).value() == body)
        stored.withLock { $0 = true }

        let bounded = RetryPolicy(maximumAttempts: 1, deadline: 1)
        let late = DeadlineFetch(url, client: Self.client, policy: .offlineFirst, retries: bounded)
        #expect(try await late.value() == body)
        #expect(late.responseSource == .staleCache)
        #expect(server.hits("/slow") == 2, "the second request was on the wire when the deadline passed")
        let started = try #require(late.dateStarted)
        let finished = try #require(late.dateFinished)
        #expect(finished.timeIntervalSince(started) < Self.held / 2, "the deadline ended the wait, not the server")

        // Without a policy that answers after a failure, the deadline still ends the run timed out.
        let strict = DeadlineFetch(url, client: Self.client, policy: .useCache, retries: bounded)
        let error = await #expect(throws: ConnectionError.self) { try await strict.value() }
        #expect(error?.kind == .timedOut)
    }

    @Test("stale-if-error: a retry whose backoff would pass the deadline gives way to the stale stored response")
    func retryPastDeadlineAnswersFromCache() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        let body = HTTPCacheWireTests.randomBody()
        let failing = HTTPCacheWireTests.routeFailingLater(server, "/flaky", body: body)
        let url = server.url("/flaky")
        #expect(try await CachedFetch(url, client: Self.client).value() == body)
        failing.withLock { $0 = true }

        // A 503 is retried, but the first backoff (60 s) ends after the deadline (10 s): no second attempt. The
        // deadline leaves the awaiting task room to process the 503 on a loaded test run, where its job waits
        // behind every other test's on the cooperative pool.
        let bounded = RetryPolicy(maximumAttempts: 3, initialBackoff: 60, jitter: 0, deadline: 10)
        let during = DeadlineFetch(url, client: Self.client, policy: nil, retries: bounded)
        #expect(try await during.value() == body)
        #expect(during.responseSource == .staleCache)
        #expect(server.hits("/flaky") == 2)
    }
}
