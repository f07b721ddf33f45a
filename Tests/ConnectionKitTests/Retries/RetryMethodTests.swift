import ConnectionKit
import ConnectionKitTesting
import Foundation
import Testing

/// Which methods are retried: idempotent ones; POST and PATCH only with an `Idempotency-Key`.
@Suite(.offThePool, .exclusive, .timeLimit(.minutes(20))) struct RetryMethodTests {
    private func attempts(
        _ method: HTTPMethod, headers: [String: String] = [:], policy: RetryPolicy = testPolicy(attempts: 3)
    ) async throws -> (hits: Int, ending: Ending?, keys: [String?]) {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/write") { _ in .status(503) }
        let ending = await run(RetryingRequest(server.url("/write"), method: method, headers: headers, policy: policy))
        let received = server.receivedRequests("/write")
        #expect(received.allSatisfy { $0.method == method.rawValue })
        if received.count > 1 {
            expectGaps(gaps(server, "/write"), within: Array(repeating: 0.05...0.05, count: received.count - 1))
        }
        return (received.count, ending, received.map { $0.header("Idempotency-Key") })
    }

    @Test(arguments: [HTTPMethod.get, .head, .put, .delete, .options])
    func idempotentMethodsAreRetried(method: HTTPMethod) async throws {
        let result = try await attempts(method)
        #expect(result.hits == 3)
        #expect(result.ending?.error?.statusCode == 503)
    }

    @Test(arguments: [HTTPMethod.post, .patch])
    func writesWithoutAKeyAreNotRetried(method: HTTPMethod) async throws {
        let result = try await attempts(method)
        #expect(result.hits == 1)
        #expect(result.ending?.error?.statusCode == 503)
    }

    @Test(arguments: [HTTPMethod.post, .patch])
    func writesWithAnIdempotencyKeyAreRetriedWithTheSameKey(method: HTTPMethod) async throws {
        let result = try await attempts(method, headers: ["Idempotency-Key": "order-42"])
        #expect(result.hits == 3)
        #expect(result.keys == ["order-42", "order-42", "order-42"])
    }

    @Test func theKeyCanBeIgnored() async throws {
        var policy = testPolicy(attempts: 3)
        policy.retriesRequestsWithIdempotencyKey = false
        #expect(try await attempts(.post, headers: ["Idempotency-Key": "k"], policy: policy).hits == 1)
    }

    @Test func retryableMethodsCanBeWidened() async throws {
        var policy = testPolicy(attempts: 2)
        policy.retryableMethods.insert(.post)
        #expect(try await attempts(.post, policy: policy).hits == 2)
        policy.retryableMethods = []
        #expect(try await attempts(.get, policy: policy).hits == 1)
    }

    @Test func aPostRedirectedToAGetIsJudgedAsThePostThatARetrySends() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("POST", "/submit") { _ in .redirect(to: "/result", status: 303) }
        server.route("GET", "/result") { _ in .status(503) }
        let ending = await run(RetryingRequest(server.url("/submit"), method: .post, policy: testPolicy(attempts: 3)))
        #expect(ending?.error?.statusCode == 503)
        #expect(server.hits("/submit") == 1, "a retry would send the POST again")
        #expect(server.hits("/result") == 1)
    }
}
