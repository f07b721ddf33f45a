import ConnectionKit
import ConnectionKitTesting
import Foundation
import Testing

/// Which statuses are retried: 408, 429, 500, 502, 503, 504 by default, or the policy's own set.
@Suite(.offThePool, .exclusive, .timeLimit(.minutes(20))) struct RetryStatusTests {
    private func hits(for status: Int, policy: RetryPolicy = testPolicy(attempts: 2)) async throws -> Int {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/status") { _ in .status(status) }
        let ending = await run(RetryingRequest(server.url("/status"), policy: policy))
        #expect(ending?.error?.statusCode == status)
        let count = server.hits("/status")
        if count == 2 { expectGaps(gaps(server, "/status"), within: [0.05...0.05]) }
        return count
    }

    @Test(arguments: [408, 429, 500, 502, 503, 504])
    func retryableStatusesAreRetried(status: Int) async throws {
        #expect(try await hits(for: status) == 2)
    }

    @Test(arguments: [400, 401, 403, 404, 409, 418, 501])
    func otherStatusesAreNot(status: Int) async throws {
        #expect(try await hits(for: status) == 1)
    }

    @Test func theSetIsThePolicys() async throws {
        var policy = testPolicy(attempts: 2)
        policy.retryableStatusCodes = [418]
        #expect(try await hits(for: 418, policy: policy) == 2)
        #expect(try await hits(for: 503, policy: policy) == 1)
    }
}
