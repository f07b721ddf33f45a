import ConnectionKit
import ConnectionKitTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What the cache stores and how it revalidates, against a loopback server: the fields `Connection` names,
/// `must-understand`, bodies that may be incomplete, and a `304` for another response. Runs on both
/// transports (`CONNECTIONKIT_TEST_TRANSPORT=libcurl` for libcurl).
@Suite(
    "The HTTP cache: what is stored, and a 304 that confirms nothing (RFC 9111)", .offThePool, .timeLimit(.minutes(2)))
struct HTTPCacheStoringTests {
    static let client = ConnectionClient.ownForTests(label: "cache-storing", httpCache: .inMemory())

    /// How long a test watches for a request that must not reach the server.
    static let settle: TimeInterval = 0.5

    static func response(_ body: Data, status: Int = 200, _ headers: [(String, String)]) -> TestResponse {
        TestResponse(status: status, headers: headers.map { TestHeader($0.0, $0.1) }, body: .data(body))
    }

    @Test("a field the response's Connection names is not stored; the other fields are")
    func connectionNamedFieldsAreNotStored() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        let body = HTTPCacheWireTests.randomBody()
        server.route("/hop") { _ in
            Self.response(
                body,
                [("Cache-Control", "max-age=600"), ("Connection", "X-Hop"), ("X-Hop", "1"), ("X-Kept", "2")])
        }
        #expect(try await CachedFetch(server.url("/hop"), client: Self.client).value() == body)
        let second = CachedFetch(server.url("/hop"), client: Self.client)
        #expect(try await second.value() == body)
        #expect(second.responseSource == .cache)
        #expect(second.urlResponse?.value(forHTTPHeaderField: "X-Kept") == "2")
        #expect(second.urlResponse?.value(forHTTPHeaderField: "X-Hop") == nil)
    }

    @Test("a 304 naming another strong ETag: sent again without If-None-Match, and the new 200 answers")
    func notModifiedForAnotherETagIsSentAgainWithoutConditions() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        let first = HTTPCacheWireTests.randomBody()
        let second = HTTPCacheWireTests.randomBody()
        let served = Locked(0)
        server.route("/other-etag") { request in
            if request.header("If-None-Match") != nil {
                return TestResponse(status: 304, headers: [TestHeader("ETag", "\"v2\"")])
            }
            let count = served.increment()
            return Self.response(
                count == 1 ? first : second,
                [("Cache-Control", "max-age=0"), ("ETag", count == 1 ? "\"v1\"" : "\"v2\"")])
        }
        #expect(try await CachedFetch(server.url("/other-etag"), client: Self.client).value() == first)
        let request = CachedFetch(server.url("/other-etag"), client: Self.client)
        #expect(try await request.value() == second)
        #expect(request.urlResponse?.statusCode == 200)
        #expect(request.responseSource == .network)
        #expect(await server.waitForHits("/other-etag", count: 4, timeout: Self.settle) == false)
        let conditions = server.receivedRequests("/other-etag").map { $0.header("If-None-Match") }
        #expect(conditions == [nil, "\"v1\"", nil])
        #expect(server.receivedRequests("/other-etag").last?.header("If-Modified-Since") == nil)
    }

    @Test("must-understand with no-store: a 200 is stored (its status is understood), so the next GET is a hit")
    func mustUnderstandStoresAnUnderstoodStatus() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        let body = HTTPCacheWireTests.randomBody()
        server.route("/understood") { _ in
            Self.response(body, [("Cache-Control", "max-age=600, must-understand, no-store")])
        }
        #expect(try await CachedFetch(server.url("/understood"), client: Self.client).value() == body)
        let second = CachedFetch(server.url("/understood"), client: Self.client)
        #expect(try await second.value() == body)
        #expect(second.responseSource == .cache)
        #expect(server.hits("/understood") == 1)
    }

    @Test("must-understand on a status the cache does not know: never stored, though max-age allows it")
    func mustUnderstandRefusesAnUnknownStatus() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/unknown") { _ in
            Self.response(
                HTTPCacheWireTests.randomBody(), status: 299, [("Cache-Control", "max-age=600, must-understand")])
        }
        for _ in 0..<2 {
            _ = try await AnyStatusFetch(server.url("/unknown"), client: Self.client).value()
        }
        #expect(server.hits("/unknown") == 2)
    }

    @Test("a 3xx without a Content-Length to check its body against (sent chunked) is never stored")
    func redirectWithoutCheckableLengthIsNotStored() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/choices") { _ in
            TestResponse(
                status: 300, headers: [TestHeader("Cache-Control", "max-age=600")],
                body: .chunked([Data("one, ".utf8), Data("two".utf8)]))
        }
        for _ in 0..<2 {
            _ = try await AnyStatusFetch(server.url("/choices"), client: Self.client).value()
        }
        #expect(server.hits("/choices") == 2)
    }

    @Test("a 3xx with a Content-Length is stored only with the whole body: a hit replays exactly the server's bytes")
    func redirectIsStoredOnlyWhole() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        let body = HTTPCacheWireTests.randomBody()
        server.route("/moved") { _ in Self.response(body, status: 300, [("Cache-Control", "max-age=600")]) }
        let first = try await AnyStatusFetch(server.url("/moved"), client: Self.client).value()
        let second = AnyStatusFetch(server.url("/moved"), client: Self.client)
        let replayed = try await second.value()
        if first == body {
            // The transport delivered the whole body (libcurl): it was stored and answers.
            #expect(second.responseSource == .cache)
            #expect(replayed == body)
            #expect(server.hits("/moved") == 1)
        } else {
            // The transport dropped the body (URLSession on Linux): nothing was stored.
            #expect(second.responseSource == .network)
            #expect(server.hits("/moved") == 2)
        }
    }
}

/// A cached request that accepts every status, so that a `3xx` or an unknown `2xx` reaches the cache's store.
final class AnyStatusFetch: CachedFetch, @unchecked Sendable {
    // Safe: no stored properties of its own.
    override func validate(_ response: ConnectionResponse, data: Data?) throws {}
}
