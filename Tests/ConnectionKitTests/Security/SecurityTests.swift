import ConnectionKit
import ConnectionKitTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Sends a bearer token through the `authorization` hook.
final class AuthorizedRequest: RetryingRequest, @unchecked Sendable {
    override var authorization: Authorization? { .bearer("hook-secret") }
}

/// Credentials across redirects, the redirect limit, and body and header size limits.
@Suite(.offThePool, .exclusive, .timeLimit(.minutes(20))) struct SecurityTests {
    private static let secrets = ["Authorization": "Bearer secret", "Cookie": "session=1", "X-Trace": "kept"]

    /// Redirects from `origin` to `target`'s `/land` and returns the request that landed.
    private func landed(
        from origin: TestServer, to targetBase: String, target: TestServer, headers: [String: String] = secrets
    )
        async throws -> TestRequest?
    {
        origin.route("/start") { _ in .redirect(to: targetBase + "/land") }
        target.route("/land") { _ in .text("landed") }
        let ending = await run(RetryingRequest(origin.url("/start"), headers: headers))
        #expect(ending?.data == Data("landed".utf8), "\(String(describing: ending?.error))")
        return target.receivedRequests("/land").first
    }

    @Test func anotherPortIsAnotherOriginAndGetsNoCredentials() async throws {
        let origin = try TestServer.started()
        let other = try TestServer.started()
        defer {
            origin.stop()
            other.stop()
        }
        let request = try #require(try await landed(from: origin, to: "http://127.0.0.1:\(other.port)", target: other))
        #expect(origin.receivedRequests("/start").first?.header("Authorization") == "Bearer secret")
        #expect(request.header("Authorization") == nil)
        #expect(request.header("Cookie") == nil)
        #expect(request.header("X-Trace") == "kept")
    }

    @Test func anotherHostIsAnotherOriginAndGetsNoCredentials() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        let request = try #require(
            try await landed(from: server, to: "http://localhost:\(server.port)", target: server))
        #expect(request.header("Authorization") == nil)
        #expect(request.header("Cookie") == nil)
        #expect(request.header("X-Trace") == "kept")
    }

    @Test func theSameOriginKeepsThem() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        let request = try #require(try await landed(from: server, to: "", target: server))
        #expect(request.header("Authorization") == "Bearer secret")
        #expect(request.header("Cookie") == "session=1")
    }

    @Test func theAuthorizationHookIsNotReappliedAcrossOrigins() async throws {
        let origin = try TestServer.started()
        let other = try TestServer.started()
        defer {
            origin.stop()
            other.stop()
        }
        origin.route("/start") { _ in .redirect(to: "http://127.0.0.1:\(other.port)/land") }
        other.route("/land") { _ in .text("landed") }
        let ending = await run(AuthorizedRequest(URLRequest(url: origin.url("/start"))))
        #expect(ending?.data == Data("landed".utf8))
        #expect(origin.receivedRequests("/start").first?.header("Authorization") == "Bearer hook-secret")
        #expect(other.receivedRequests("/land").first?.header("Authorization") == nil)
    }

    @Test(arguments: [0, 1, 3, 10])
    func redirectsAreFollowedAtMostMaximumRedirectsTimes(limit: Int) async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/loop") { _ in .redirect(to: "/loop", status: 307) }
        let ending = await run(RetryingRequest(URLRequest(url: server.url("/loop")), redirectLimit: limit))
        guard ending?.error?.kind == .tooManyRedirects, ending?.error?.limit == Int64(limit) else {
            Issue.record("\(String(describing: ending))")
            return
        }
        #expect(server.hits("/loop") == limit + 1)
    }

    @Test func aChainWithinTheLimitArrives() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        for hop in 1...10 { server.route("/hop\(hop)") { _ in .redirect(to: "/hop\(hop + 1)") } }
        server.route("/hop11") { _ in .text("arrived") }
        let ending = await run(RetryingRequest(URLRequest(url: server.url("/hop1"))))
        #expect(ending?.data == Data("arrived".utf8))
    }

    @Test(arguments: [
        TestBody.data(Data(count: 5_000)), .chunked(Array(repeating: Data(count: 500), count: 10)),
        .drip(Data(count: 5_000), chunkSize: 1_000, interval: 0.01),
    ])
    func aBodyOverTheLimitFailsWithoutBeingKept(body: TestBody) async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/big") { _ in TestResponse(body: body) }
        let request = RetryingRequest(
            URLRequest(url: server.url("/big")), policy: testPolicy(attempts: 3), bodyLimit: 1_000)
        let ending = await run(request)
        guard ending?.error?.kind == .responseTooLarge, ending?.error?.limit == 1_000 else {
            Issue.record("\(String(describing: ending))")
            return
        }
        #expect(server.hits("/big") == 1, "not retried")
    }

    /// The limit is applied to the bytes as they arrive: a body that never ends (chunked, no length, the
    /// connection held open) fails as too large once the limit is passed, where keeping the body until it
    /// ended would wait for ever and time out.
    @Test(arguments: [
        TestBody.chunked(Array(repeating: Data(count: 500), count: 10)),
        .drip(Data(count: 1_000_000), chunkSize: 1_500, interval: 0.5),
    ])
    func aBodyOverTheLimitFailsBeforeTheRestCouldArrive(body: TestBody) async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        switch body {
        case .chunked(let chunks):
            // The chunks without the terminating zero-size chunk, on a kept-alive connection: the body never ends.
            var raw = Data("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nConnection: keep-alive\r\n\r\n".utf8)
            for chunk in chunks {
                raw.append(Data((String(chunk.count, radix: 16) + "\r\n").utf8))
                raw.append(chunk)
                raw.append(Data("\r\n".utf8))
            }
            let head = raw
            server.route("/endless") { _ in TestResponse(fault: .raw(head)) }
        default:
            // 1 MB at 1,500 bytes per 0.5 s: the whole body would take over 5 minutes.
            server.route("/endless") { _ in TestResponse(body: body) }
        }
        let request = RetryingRequest(
            URLRequest(url: server.url("/endless")), policy: testPolicy(attempts: 3), timeout: 5, bodyLimit: 1_000)
        let started = Date()
        let ending = await run(request, timeout: 30)
        let elapsed = Date().timeIntervalSince(started)
        guard ending?.error?.kind == .responseTooLarge, ending?.error?.limit == 1_000 else {
            Issue.record("\(String(describing: ending))")
            return
        }
        #expect((request.duration ?? 99) < 5, "failed after \(request.duration ?? 99) s: it waited for the body")
        #expect(elapsed < 30)
        #expect(server.hits("/endless") == 1, "not retried")
    }

    @Test func aBodyAtTheLimitPasses() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/exact") { _ in TestResponse(body: .data(Data(count: 1_000))) }
        let ending = await run(RetryingRequest(URLRequest(url: server.url("/exact")), bodyLimit: 1_000))
        #expect(ending?.data?.count == 1_000)
    }

    @Test func headersOverThePerClassLimitFail() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/small") { _ in TestResponse(body: .data(Data("ok".utf8)), fault: .hugeHeaders(bytes: 4 * 1024)) }
        server.route("/large") { _ in TestResponse(body: .data(Data("ok".utf8)), fault: .hugeHeaders(bytes: 16 * 1024))
        }
        let small = await run(RetryingRequest(URLRequest(url: server.url("/small")), headerLimit: 8 * 1024))
        #expect(small?.data == Data("ok".utf8))
        let large = await run(RetryingRequest(URLRequest(url: server.url("/large")), headerLimit: 8 * 1024))
        guard large?.error?.kind == .responseTooLarge, large?.error?.limit == 8_192 else {
            Issue.record("\(String(describing: large))")
            return
        }
    }

    #if canImport(FoundationNetworking)
        /// Linux only: libcurl refuses more than 300 KiB of headers, whatever the class allows.
        @Test func headersOverWhatLibcurlAcceptsAreATypedError() async throws {
            let server = try TestServer.started()
            defer { server.stop() }
            server.route("/huge") { _ in
                TestResponse(body: .data(Data("ok".utf8)), fault: .hugeHeaders(bytes: 1024 * 1024))
            }
            let ending = await run(RetryingRequest(URLRequest(url: server.url("/huge")), headerLimit: 4 * 1024 * 1024))
            guard case .responseTooLarge? = ending?.error?.kind else {
                Issue.record("\(String(describing: ending))")
                return
            }
            #expect(ending?.error?.description.contains("larger than its limit") == true)
        }
    #endif
}
