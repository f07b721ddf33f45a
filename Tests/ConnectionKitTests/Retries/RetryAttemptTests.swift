import ConnectionKit
import ConnectionKitTesting
import Foundation
import Testing

/// The attempt limit and the exponential backoff, measured from the server's side.
@Suite(.offThePool, .exclusive, .timeLimit(.minutes(20))) struct RetryAttemptTests {
    @Test func stopsAtTheAttemptLimitWithTheLastError() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/busy") { _ in .status(503, body: "busy") }
        let ending = await run(RetryingRequest(server.url("/busy"), policy: testPolicy(attempts: 4, backoff: 0.1)))
        #expect(ending?.error?.statusCode == 503)
        #expect(String(decoding: ending?.error?.responseBody ?? Data(), as: UTF8.self) == "busy")
        #expect(server.hits("/busy") == 4)
        expectGaps(gaps(server, "/busy"), within: [0.1...0.1, 0.1...0.1, 0.1...0.1])
    }

    @Test func succeedsOnALaterAttempt() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        let counter = Counter()
        server.route("/flaky") { _ in counter.next() < 3 ? .status(500) : .text("third time") }
        let request = RetryingRequest(server.url("/flaky"), policy: testPolicy(attempts: 5, backoff: 0.05))
        let ending = await run(request)
        #expect(ending?.data == Data("third time".utf8))
        #expect(server.hits("/flaky") == 3)
        #expect(request.attempt == 3)
        expectGaps(gaps(server, "/flaky"), within: [0.05...0.05, 0.05...0.05])
    }

    @Test func noneMeansOneAttempt() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/busy") { _ in .status(503) }
        let ending = await run(RetryingRequest(server.url("/busy"), policy: .none))
        #expect(ending?.error?.statusCode == 503)
        #expect(server.hits("/busy") == 1)
    }

    @Test func backoffGrowsExponentiallyUpToTheCap() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/busy") { _ in .status(502) }
        // 0.2, then 8 capped to 0.35, then 320 capped to 0.35: an uncapped wait is far past the slack.
        let policy = testPolicy(attempts: 4, backoff: 0.2, multiplier: 40, cap: 0.35)
        let ending = await run(RetryingRequest(server.url("/busy"), policy: policy))
        #expect(ending?.error?.statusCode == 502)
        #expect(server.hits("/busy") == 4)
        expectGaps(gaps(server, "/busy"), within: [0.2...0.2, 0.35...0.35, 0.35...0.35])
    }

    @Test func jitterKeepsEachWaitWithinItsSpread() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/busy") { _ in .status(503) }
        let policy = testPolicy(attempts: 4, backoff: 0.2, multiplier: 2, cap: 0.5, jitter: 0.5)
        let ending = await run(RetryingRequest(server.url("/busy"), policy: policy))
        #expect(ending?.error?.statusCode == 503)
        #expect(server.hits("/busy") == 4)
        // Bases 0.2, 0.4, 0.8→cap; ±50%, and never above the cap.
        expectGaps(gaps(server, "/busy"), within: [0.1...0.3, 0.2...0.5, 0.25...0.5])
    }
}
