import ConnectionKit
import ConnectionKitTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The HTTP cache in the request path, against a loopback server: run on both transports
/// (`CONNECTIONKIT_TEST_TRANSPORT=libcurl` for libcurl).
@Suite("The HTTP cache in the request path (RFC 9111)", .offThePool, .timeLimit(.minutes(2)))
struct HTTPCacheWireTests {
    /// One client with an in-memory cache for the suite: each test's server has its own port, so its URLs
    /// (and entries) are its own.
    static let client = ConnectionClient.ownForTests(label: "cache-wire", httpCache: .inMemory())

    /// How long a test watches for a request that must not reach the server.
    static let settle: TimeInterval = 0.5

    /// Bytes no two responses share by chance.
    static func randomBody(_ count: Int = 4096) -> Data {
        Data((0..<count).map { _ in UInt8.random(in: 0...255) })
    }

    static func response(_ body: Data, _ headers: [String: String]) -> TestResponse {
        TestResponse(headers: headers.map { TestHeader($0.key, $0.value) }, body: .data(body))
    }

    /// Routes `path` to `body` with `max-age=0, stale-if-error=600` until the returned switch is turned on,
    /// then to `503`.
    static func routeFailingLater(_ server: TestServer, _ path: String, body: Data) -> Locked<Bool> {
        let failing = Locked(false)
        server.route(path) { _ in
            if failing.withLock({ $0 }) { return .status(503) }
            return response(body, ["Cache-Control": "max-age=0, stale-if-error=600"])
        }
        return failing
    }

    @Test("a fresh hit sends nothing, and its handlers, value() and history see it exactly once, from the cache")
    func freshHitSendsNothing() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        let body = Self.randomBody()
        server.route("/fresh") { _ in Self.response(body, ["Cache-Control": "max-age=600"]) }
        let first = CachedFetch(server.url("/fresh"), client: Self.client)
        #expect(try await first.value() == body)
        #expect(first.responseSource == .network)
        let second = CachedFetch(server.url("/fresh"), client: Self.client)
        let endings = Endings(second)
        second.start()
        #expect(try await endings.value() == body)
        #expect(endings.count == 1)
        #expect(second.responseSource == .cache)
        #expect(second.urlResponse?.statusCode == 200)
        #expect(await server.waitForHits("/fresh", count: 2, timeout: Self.settle) == false)
        #expect(server.hits("/fresh") == 1)
        let identifier = second.identifier
        let records = Self.client.registry.history().filter { $0.identifier == identifier }
        #expect(records.count == 1)
        #expect(records.first?.responseSource == .cache)
    }

    @Test(
        "an expired entry (max-age=0) is sent with If-None-Match; the 304 reaches the handler as a 200 with the stored body"
    )
    func expiredEntryRevalidatedBy304() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        let body = Self.randomBody()
        server.route("/etag") { request in
            if request.header("If-None-Match") == "\"v1\"" {
                return TestResponse(status: 304, headers: [TestHeader("ETag", "\"v1\"")])
            }
            return Self.response(body, ["Cache-Control": "max-age=0", "ETag": "\"v1\""])
        }
        #expect(try await CachedFetch(server.url("/etag"), client: Self.client).value() == body)
        let second = CachedFetch(server.url("/etag"), client: Self.client)
        #expect(try await second.value() == body)
        let sent = server.receivedRequests("/etag")
        #expect(sent.count == 2)
        #expect(sent.first?.header("If-None-Match") == nil)
        #expect(sent.last?.header("If-None-Match") == "\"v1\"")
        #expect(second.urlResponse?.statusCode == 200)
        #expect(second.responseSource == .revalidated)
    }

    @Test(
        "a 304 that confirms an entry evicted since the lookup: the GET is sent again once without conditions, and its 200 answers"
    )
    func notModifiedForALostEntryIsSentAgain() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        // A cache of its own: emptying it must touch no other test's entries.
        let cache = HTTPCache.inMemory()
        let client = ConnectionClient.ownForTests(label: "cache-lost-entry", httpCache: cache)
        let body = Self.randomBody()
        server.route("/lost") { request in
            if request.header("If-None-Match") == "\"v1\"" {
                // The stored response goes between the lookup and the answer, as an eviction would take it.
                cache.removeAll()
                return TestResponse(status: 304, headers: [TestHeader("ETag", "\"v1\"")])
            }
            return Self.response(body, ["Cache-Control": "max-age=0", "ETag": "\"v1\""])
        }
        #expect(try await CachedFetch(server.url("/lost"), client: client).value() == body)
        let second = CachedFetch(server.url("/lost"), client: client)
        #expect(try await second.value() == body)
        #expect(second.urlResponse?.statusCode == 200)
        #expect(second.responseSource == .network)
        #expect(await server.waitForHits("/lost", count: 4, timeout: Self.settle) == false, "sent again once only")
        #expect(server.receivedRequests("/lost").map { $0.header("If-None-Match") } == [nil, "\"v1\"", nil])
        #expect(cache.totalBytes > 0, "the answer to the resend is stored")
        await client.shutdown()
    }

    @Test("Cache-Control: no-cache on the response forces revalidation however fresh (If-None-Match on every request)")
    func noCacheForcesRevalidation() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        let body = Self.randomBody()
        server.route("/no-cache") { request in
            if request.header("If-None-Match") == "\"n1\"" {
                return TestResponse(status: 304, headers: [TestHeader("ETag", "\"n1\"")])
            }
            return Self.response(body, ["Cache-Control": "no-cache, max-age=600", "ETag": "\"n1\""])
        }
        for _ in 0..<3 {
            #expect(try await CachedFetch(server.url("/no-cache"), client: Self.client).value() == body)
        }
        let sent = server.receivedRequests("/no-cache").map { $0.header("If-None-Match") }
        #expect(sent == [nil, "\"n1\"", "\"n1\""])
    }

    @Test("a no-store response is not stored: the second GET goes to the server")
    func noStoreNotStored() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/no-store") { _ in Self.response(Self.randomBody(), ["Cache-Control": "no-store, max-age=600"]) }
        let first = try await CachedFetch(server.url("/no-store"), client: Self.client).value()
        let again = CachedFetch(server.url("/no-store"), client: Self.client)
        let second = try await again.value()
        #expect(first != second)
        #expect(again.responseSource == .network)
        #expect(server.hits("/no-store") == 2)
    }

    @Test(
        "Vary: a stored variant answers only the same Accept-Language; another language goes to the server, and both are kept"
    )
    func varyHonoured() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/vary") { request in
            let language = request.header("Accept-Language") ?? "none"
            return Self.response(Data(language.utf8), ["Cache-Control": "max-age=600", "Vary": "Accept-Language"])
        }
        let url = server.url("/vary")
        let english = try await CachedFetch(url, client: Self.client, headers: ["Accept-Language": "en"]).value()
        let french = CachedFetch(url, client: Self.client, headers: ["Accept-Language": "fr"])
        #expect(String(decoding: english, as: UTF8.self) == "en")
        #expect(String(decoding: try await french.value(), as: UTF8.self) == "fr")
        #expect(french.responseSource == .network)
        let frenchAgain = CachedFetch(url, client: Self.client, headers: ["Accept-Language": "fr"])
        #expect(String(decoding: try await frenchAgain.value(), as: UTF8.self) == "fr")
        #expect(frenchAgain.responseSource == .cache)
        // The French answer did not replace the English one: each variant is kept.
        let englishAgain = CachedFetch(url, client: Self.client, headers: ["Accept-Language": "en"])
        #expect(String(decoding: try await englishAgain.value(), as: UTF8.self) == "en")
        #expect(englishAgain.responseSource == .cache)
        #expect(server.hits("/vary") == 2)
    }

    @Test("Authorization partitions: a request with another token never gets the other's stored response")
    func authorizationPartitions() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/me") { request in
            Self.response(
                Data((request.header("Authorization") ?? "anonymous").utf8), ["Cache-Control": "private, max-age=600"])
        }
        func fetch(_ token: String) async throws -> (String, ResponseSource?) {
            let request = CachedFetch(
                server.url("/me"), client: Self.client, headers: ["Authorization": "Bearer \(token)"])
            let body = try await request.value()
            return (String(decoding: body, as: UTF8.self), request.responseSource)
        }
        #expect(try await fetch("alice") == ("Bearer alice", .network))
        #expect(try await fetch("bob") == ("Bearer bob", .network))
        #expect(try await fetch("bob") == ("Bearer bob", .cache))
        #expect(try await fetch("alice") == ("Bearer alice", .cache))
        #expect(server.hits("/me") == 2)
    }

    @Test("a POST answered 2xx invalidates the stored GET of its URL: the next GET goes to the server")
    func postInvalidates() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("GET", "/items") { _ in Self.response(Self.randomBody(), ["Cache-Control": "max-age=600"]) }
        server.route("POST", "/items") { _ in .status(201) }
        let url = server.url("/items")
        let first = try await CachedFetch(url, client: Self.client).value()
        let hit = CachedFetch(url, client: Self.client)
        #expect(try await hit.value() == first)
        #expect(hit.responseSource == .cache)
        _ = try await CachedFetch(url, client: Self.client, method: .post).value()
        let after = CachedFetch(url, client: Self.client)
        #expect(try await after.value() != first)
        #expect(after.responseSource == .network)
        #expect(server.receivedRequests("/items").map(\.method) == ["GET", "POST", "GET"])
    }

    @Test("Set-Cookie is never stored: the cached answer carries no Set-Cookie")
    func setCookieNeverStored() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/cookie") { _ in
            Self.response(Data("c".utf8), ["Cache-Control": "max-age=600", "Set-Cookie": "session=secret; Path=/"])
        }
        let first = CachedFetch(server.url("/cookie"), client: Self.client)
        _ = try await first.value()
        #expect(first.urlResponse?.value(forHTTPHeaderField: "Set-Cookie") != nil)
        let second = CachedFetch(server.url("/cookie"), client: Self.client)
        _ = try await second.value()
        #expect(second.responseSource == .cache)
        #expect(second.urlResponse?.value(forHTTPHeaderField: "Set-Cookie") == nil)
    }

    @Test("offline first: with the server stopped, the stale stored response answers and says it is stale")
    func offlineFirstAnswersStale() async throws {
        let server = try TestServer.started()
        let body = Self.randomBody()
        server.route("/events") { _ in Self.response(body, ["Cache-Control": "max-age=0", "ETag": "\"e1\""]) }
        let url = server.url("/events")
        #expect(try await CachedFetch(url, client: Self.client, policy: .offlineFirst).value() == body)
        server.stop()
        let offline = CachedFetch(url, client: Self.client, policy: .offlineFirst)
        #expect(try await offline.value() == body)
        #expect(offline.responseSource == .staleCache)
        // The same stored response under useCache (no stale-if-error): the failure is the answer.
        let strict = CachedFetch(url, client: Self.client, policy: .useCache)
        await #expect(throws: ConnectionError.self) { try await strict.value() }
    }

    @Test("stale-if-error: a 503 is answered by the stale stored response under useCache")
    func staleIfErrorAnswersServerError() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        let body = Self.randomBody()
        let failing = Self.routeFailingLater(server, "/sie", body: body)
        #expect(try await CachedFetch(server.url("/sie"), client: Self.client).value() == body)
        failing.withLock { $0 = true }
        let during = CachedFetch(server.url("/sie"), client: Self.client)
        #expect(try await during.value() == body)
        #expect(during.responseSource == .staleCache)
        #expect(server.hits("/sie") == 2)
    }

    @Test(
        "stale-while-revalidate answers from the cache at once and revalidates behind (If-None-Match reaches the server)"
    )
    func staleWhileRevalidateRefreshesBehind() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        let body = Self.randomBody()
        // The revalidation's answer comes late: an answer that waited for it would come later still.
        let revalidationDelay: TimeInterval = 6
        server.route("/swr") { request in
            if request.header("If-None-Match") == "\"s1\"" {
                return TestResponse(
                    status: 304, headers: [TestHeader("ETag", "\"s1\"")], delayBeforeHeaders: revalidationDelay)
            }
            return Self.response(body, ["Cache-Control": "max-age=0, stale-while-revalidate=600", "ETag": "\"s1\""])
        }
        #expect(try await CachedFetch(server.url("/swr"), client: Self.client).value() == body)
        let stale = CachedFetch(server.url("/swr"), client: Self.client)
        let asked = Date()
        #expect(try await stale.value() == body)
        let waited = Date().timeIntervalSince(asked)
        #expect(waited < revalidationDelay / 2, "the stale answer took \(waited) s: it waited for the revalidation")
        #expect(stale.responseSource == .staleCache)
        #expect(await server.waitForHits("/swr", count: 2, timeout: 60))
        #expect(server.receivedRequests("/swr").last?.header("If-None-Match") == "\"s1\"")
    }

    @Test("a class on networkOnly is neither answered nor stored, though its client has a cache")
    func networkOnlyBypasses() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/bypass") { _ in Self.response(Self.randomBody(), ["Cache-Control": "max-age=600"]) }
        for _ in 0..<2 {
            let request = CachedFetch(server.url("/bypass"), client: Self.client, policy: .networkOnly)
            _ = try await request.value()
            #expect(request.responseSource == .network)
        }
        #expect(server.hits("/bypass") == 2)
        // The store, asked by a class that uses it: a stored max-age=600 response would answer this at once.
        let reader = CachedFetch(server.url("/bypass"), client: Self.client)
        _ = try await reader.value()
        #expect(reader.responseSource == .network, "a networkOnly response was stored")
        #expect(server.hits("/bypass") == 3)
    }
}
