import ConnectionKit
import ConnectionKitTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A request of a class that opted into a cookie jar, with the headers it sets itself.
final class JarRequest: FetchData, @unchecked Sendable {
    // Safe: only immutable stored properties.
    let jar: CookieJar?
    let ownHeaders: [String: String]
    init(_ target: URL, jar: CookieJar?, headers: [String: String] = [:]) {
        self.jar = jar
        self.ownHeaders = headers
        super.init(target)
    }
    override var cookieJar: CookieJar? { jar }
    override var requestHeaderFields: [String: String] { ownHeaders }
}

/// The jar on the wire, against a loopback server: run on both transports
/// (`CONNECTIONKIT_TEST_TRANSPORT=libcurl` for libcurl).
@Suite("A cookie jar on the wire (RFC 6265)", .offThePool, .timeLimit(.minutes(2)))
struct CookieWireTests {
    private struct Received: Decodable { var cookies: [String: String] }

    private func cookiesEchoed(_ data: Data) throws -> [String: String] {
        try JSONDecoder().decode(Received.self, from: data).cookies
    }

    @Test("httpbin's /cookies/set → 302 → /cookies round trip: the 302's cookies reach the next hop and later requests")
    func httpbinRoundTrip() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        CookieRoutes.install(on: server)
        let jar = CookieJar()
        let landed = try await JarRequest(server.url("/cookies/set?session=abc123&csrf=t0k"), jar: jar).value()
        #expect(try cookiesEchoed(landed) == ["session": "abc123", "csrf": "t0k"])
        let later = try await JarRequest(server.url("/cookies"), jar: jar).value()
        #expect(try cookiesEchoed(later) == ["session": "abc123", "csrf": "t0k"])
        let deleted = try await JarRequest(server.url("/cookies/delete?session"), jar: jar).value()
        #expect(try cookiesEchoed(deleted) == ["csrf": "t0k"])
        // A class without a jar sends no cookie, as before.
        let without = try await JarRequest(server.url("/cookies"), jar: nil).value()
        #expect(try cookiesEchoed(without).isEmpty)
    }

    @Test("a cookie set without Path from /a/b/ reaches /a/b; one with Path=/a/dir/ reaches /a/dir/, not /a/dir")
    func pathsWithATrailingSlash() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/a/b/") { _ in
            var response = TestResponse.text("set")
            response.headers.append(TestHeader("Set-Cookie", "nopath=1"))
            response.headers.append(TestHeader("Set-Cookie", "dir=2; Path=/a/dir/"))
            return response
        }
        for path in ["/a/b", "/a/dir/", "/a/dir", "/a"] {
            server.route(path) { request in .json(["cookies": CookieRoutes.received(request)]) }
        }
        let jar = CookieJar()
        _ = try await JarRequest(server.url("/a/b/"), jar: jar).value()
        #expect(try cookiesEchoed(await JarRequest(server.url("/a/b"), jar: jar).value()) == ["nopath": "1"])
        #expect(try cookiesEchoed(await JarRequest(server.url("/a/dir/"), jar: jar).value()) == ["dir": "2"])
        #expect(try cookiesEchoed(await JarRequest(server.url("/a/dir"), jar: jar).value()).isEmpty)
        #expect(try cookiesEchoed(await JarRequest(server.url("/a"), jar: jar).value()).isEmpty)
    }

    @Test("each hop of a redirect gets the cookies of its own URL (path), including those its 302 just set")
    func eachHopItsOwnCookies() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/a/start") { _ in
            var response = TestResponse.redirect(to: "/b/end")
            response.headers.append(TestHeader("Set-Cookie", "scoped=a-only; Path=/a"))
            response.headers.append(TestHeader("Set-Cookie", "root=1; Path=/"))
            return response
        }
        server.route("/b/end") { .echo($0) }
        let jar = CookieJar()
        jar.store(setCookie: "early=1; Path=/a", from: server.url("/a/x"))
        _ = try await JarRequest(server.url("/a/start"), jar: jar).value()
        #expect(server.receivedRequests("/a/start").first?.header("Cookie") == "early=1")
        #expect(server.receivedRequests("/b/end").first?.header("Cookie") == "root=1")
    }

    @Test("several Set-Cookie fields of one response (Expires dates with commas) are all stored")
    func severalFieldsInOneResponse() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/login") { _ in
            TestResponse(
                headers: [
                    TestHeader("Set-Cookie", "session=s1; Path=/; Expires=Wed, 21 Oct 2099 07:28:00 GMT; HttpOnly"),
                    TestHeader("Set-Cookie", "csrf=c1; Path=/; expires=Wednesday, 21-Oct-37 07:28:00 GMT"),
                    TestHeader("Set-Cookie", "theme=dark; Path=/"),
                ], body: .data(Data("ok".utf8)))
        }
        server.route("/me") { .echo($0) }
        let jar = CookieJar()
        _ = try await JarRequest(server.url("/login"), jar: jar).value()
        _ = try await JarRequest(server.url("/me"), jar: jar).value()
        let sent = try #require(server.receivedRequests("/me").first)
        #expect(CookieRoutes.received(sent) == ["session": "s1", "csrf": "c1", "theme": "dark"])
    }

    @Test("a Cookie header the request sets is kept and merged; its names win over the jar's")
    func ownHeaderMerged() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/echo") { .echo($0) }
        let jar = CookieJar()
        jar.store(setCookie: "session=from-jar", from: server.url("/"))
        jar.store(setCookie: "csrf=t", from: server.url("/"))
        _ = try await JarRequest(server.url("/echo"), jar: jar, headers: ["Cookie": "session=mine; theme=dark"]).value()
        #expect(server.receivedRequests("/echo").first?.header("Cookie") == "session=mine; theme=dark; csrf=t")
    }

    @Test("a cross-origin redirect never carries the first origin's cookies; it gets its own")
    func crossOriginRedirect() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        let otherOrigin = "http://localhost:\(server.port)"
        server.route("/start") { _ in
            var response = TestResponse.redirect(to: "\(otherOrigin)/landing")
            response.headers.append(TestHeader("Set-Cookie", "first=1; Path=/"))
            return response
        }
        server.route("/landing") { .echo($0) }
        let jar = CookieJar()
        jar.store(setCookie: "before=1; Path=/", from: server.url("/"))
        jar.store(setCookie: "theirs=1; Path=/", from: try #require(URL(string: "\(otherOrigin)/")))
        _ = try await JarRequest(server.url("/start"), jar: jar, headers: ["Cookie": "own=1"]).value()
        #expect(server.receivedRequests("/start").first?.header("Cookie") == "own=1; before=1")
        #expect(server.receivedRequests("/landing").first?.header("Cookie") == "theirs=1")
    }

    @Test("a Secure cookie is neither set from nor sent over http")
    func secureNotOverHTTP() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/set") { _ in
            TestResponse(headers: [TestHeader("Set-Cookie", "tls=1; Secure; Path=/")], body: .data(Data()))
        }
        server.route("/echo") { .echo($0) }
        let jar = CookieJar()
        _ = try await JarRequest(server.url("/set"), jar: jar).value()
        #expect(jar.allCookies.isEmpty)
        let host = try #require(server.url("/").host)
        jar.add(Cookie(name: "stored", value: "1", domain: host, isSecure: true))
        jar.add(Cookie(name: "plain", value: "1", domain: host))
        _ = try await JarRequest(server.url("/echo"), jar: jar).value()
        #expect(server.receivedRequests("/echo").first?.header("Cookie") == "plain=1")
    }

    @Test("cookies set by a failed response (401) are stored too")
    func setOnAnError() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/denied") { _ in
            TestResponse(
                status: 401, headers: [TestHeader("Set-Cookie", "retry-token=r1; Path=/")], body: .data(Data()))
        }
        server.route("/echo") { .echo($0) }
        let jar = CookieJar()
        await #expect(throws: ConnectionError.self) {
            _ = try await JarRequest(server.url("/denied"), jar: jar).value()
        }
        _ = try await JarRequest(server.url("/echo"), jar: jar).value()
        #expect(server.receivedRequests("/echo").first?.header("Cookie") == "retry-token=r1")
    }

    @Test("an empty Domain after one the host is not in leaves the cookie refused, not host-only")
    func emptyDomainAfterAForeignOne() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/set") { _ in
            var response = TestResponse.text("set")
            response.headers.append(TestHeader("Set-Cookie", "foreign=1; Domain=elsewhere.example; Domain="))
            response.headers.append(TestHeader("Set-Cookie", "kept=2; Domain="))
            return response
        }
        server.route("/echo") { .echo($0) }
        let jar = CookieJar()
        _ = try await JarRequest(server.url("/set"), jar: jar).value()
        _ = try await JarRequest(server.url("/echo"), jar: jar).value()
        #expect(server.receivedRequests("/echo").first?.header("Cookie") == "kept=2")
    }
}

/// The jar a client owns: every request of the client uses it without overriding `cookieJar`.
@Suite("A client's cookie jar", .offThePool, .timeLimit(.minutes(2)))
struct ClientCookieJarTests {
    @Test("a client made with a jar stores and sends its requests' cookies; the shared client's requests keep none")
    func theClientsJarIsItsRequestsJar() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        CookieRoutes.install(on: server)
        for choice in [ConnectionClient.TransportChoice.urlSession, .libcurl] {
            let jar = CookieJar()
            let client = try ConnectionClient(checking: choice, label: "cookies", cookieJar: jar)
            _ = try await FetchOnClient(server.url("/cookies/set?session=abc123"), on: client).value()
            let later = try await FetchOnClient(server.url("/cookies"), on: client).value()
            #expect(String(decoding: later, as: UTF8.self).contains("abc123"), "\(choice)")
            #expect(jar.cookies(for: server.url("/cookies")).map(\.name) == ["session"], "\(choice)")
            await client.shutdown()
        }
        let shared = try await FetchData(server.url("/cookies")).value()
        #expect(!String(decoding: shared, as: UTF8.self).contains("abc123"))
    }
}
