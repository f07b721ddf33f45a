import ConnectionKit
import ConnectionKitTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Which transport errors are retried, and timeouts (`retryOnTimeout(times:)`).
@Suite(.offThePool, .exclusive, .timeLimit(.minutes(20))) struct RetryTransportErrorTests {
    /// The first attempt meets `fault`, the second gets "ok".
    private func faultThenOK(_ fault: TestFault, policy: RetryPolicy, timeout: TimeInterval = 10) async throws -> (
        Ending?, Int, [TimeInterval]
    ) {
        let server = try TestServer.started()
        defer { server.stop() }
        let counter = Counter()
        server.route("/once") { _ in
            counter.next() == 1 ? TestResponse(body: .data(Data(count: 1_000)), fault: fault) : .text("ok")
        }
        let ending = await run(RetryingRequest(server.url("/once"), policy: policy, timeout: timeout))
        return (ending, server.hits("/once"), gaps(server, "/once"))
    }

    @Test(arguments: [
        TestFault.resetBeforeHeaders, .closeBeforeHeaders, .resetAfterBodyBytes(100), .closeAfterBodyBytes(100),
        .shortBody(declaredLength: 5_000),
    ])
    func droppedConnectionsAreRetried(fault: TestFault) async throws {
        let (ending, hits, measured) = try await faultThenOK(fault, policy: testPolicy(attempts: 2))
        #expect(ending?.data == Data("ok".utf8))
        #expect(hits == 2)
        expectGaps(measured, within: [0.05...0.05])
    }

    @Test func aNonHTTPAnswerIsNotRetried() async throws {
        let (ending, hits, _) = try await faultThenOK(
            .notHTTP(Data("SSH-2.0-OpenSSH\r\n".utf8)), policy: testPolicy(attempts: 3))
        #expect(ending?.error?.urlErrorCode == .badServerResponse)
        #expect(hits == 1)
    }

    @Test func theCodesAreThePolicys() async throws {
        var policy = testPolicy(attempts: 3)
        policy.retryableURLErrorCodes = []
        let (ending, hits, _) = try await faultThenOK(.resetBeforeHeaders, policy: policy)
        #expect(ending?.error?.urlErrorCode == .networkConnectionLost)
        #expect(hits == 1)
    }

    @Test func refusedConnectionsAreRetried() async throws {
        // Bound and never listened on: refused, and never taken by a parallel test's server.
        let refusing = try LoopbackPort(reusable: false)
        defer { refusing.release() }
        let url = try #require(URL(string: "http://127.0.0.1:\(refusing.port)/gone"))
        let request = RetryingRequest(url, policy: testPolicy(attempts: 3, backoff: 0.1))
        let started = Date()
        let ending = await run(request)
        #expect(ending?.error?.urlErrorCode == .cannotConnectToHost)
        #expect(request.attempt == 3)
        #expect(Date().timeIntervalSince(started) >= 0.2 - clockTolerance)
    }

    @Test func anIdleTimeoutIsRetried() async throws {
        let (ending, hits, measured) = try await faultThenOK(
            .neverRespond, policy: testPolicy(attempts: 2), timeout: 0.3)
        #expect(ending?.data == Data("ok".utf8))
        #expect(hits == 2)
        expectGaps(measured, within: [0.35...0.35], early: arrivalSkew)
    }

    @Test func retryOnTimeoutRetriesTimeoutsOnly() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/silent") { _ in TestResponse(fault: .neverRespond) }
        server.route("/busy") { _ in .status(503) }
        let policy = RetryPolicy.retryOnTimeout(times: 2)
        let ending = await run(RetryingRequest(server.url("/silent"), policy: policy, timeout: 0.25))
        #expect(ending?.error?.isTimedOut == true)
        #expect(server.hits("/silent") == 3)
        // Timeout 0.25 plus backoff 0.5 then 1.0, each ±20%.
        expectGaps(gaps(server, "/silent"), within: [0.65...0.85, 1.05...1.45], early: arrivalSkew)
        let busy = await run(RetryingRequest(server.url("/busy"), policy: policy))
        #expect(busy?.error?.statusCode == 503)
        #expect(server.hits("/busy") == 1)
    }
}
