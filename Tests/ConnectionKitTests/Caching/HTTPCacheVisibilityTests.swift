import ConnectionKit
import ConnectionKitTesting
import Foundation
import Testing

/// Where an answer came from, as the history, the statistics and the HAR export say it.
@Suite("The HTTP cache's results in the history, statistics and HAR", .offThePool, .timeLimit(.minutes(2)))
struct HTTPCacheVisibilityTests {
    /// A client of this suite's own: its statistics count only this suite's runs.
    static let client = ConnectionClient.ownForTests(label: "cache-visible", httpCache: .inMemory())

    @Test("a miss, a hit and a 304 revalidation are recorded as network, cache and revalidated, and counted per class")
    func missHitRevalidatedRecorded() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        let revalidate = Locked(false)
        server.route("/visible") { request in
            if request.header("If-None-Match") == "\"x1\"" {
                return TestResponse(status: 304, headers: [TestHeader("ETag", "\"x1\"")])
            }
            let control = revalidate.withLock { $0 } ? "max-age=0" : "max-age=600"
            return HTTPCacheWireTests.response(Data("x".utf8), ["Cache-Control": control, "ETag": "\"x1\""])
        }
        let url = server.url("/visible")
        let requests = [CachedFetch(url, client: Self.client), CachedFetch(url, client: Self.client)]
        for request in requests { _ = try await request.value() }
        // Stored again as already stale: the third request revalidates.
        Self.client.httpCache?.removeAll()
        revalidate.withLock { $0 = true }
        let stale = CachedFetch(url, client: Self.client)
        _ = try await stale.value()
        let third = CachedFetch(url, client: Self.client)
        _ = try await third.value()
        let identifiers = (requests + [third]).map(\.identifier)
        let records = Self.client.registry.history()
        let sources = identifiers.map { id in records.first { $0.identifier == id }?.responseSource }
        #expect(sources == [.network, .cache, .revalidated])
        let counts = try #require(Self.client.registry.statistics(of: CachedFetch.self)?.cache)
        #expect(counts.hits == 1)
        #expect(counts.revalidated == 1)
        #expect(counts.misses == 2)
        let har = try JSONSerialization.jsonObject(with: Self.client.registry.harData()) as? [String: Any]
        let entries = ((har?["log"] as? [String: Any])?["entries"] as? [[String: Any]]) ?? []
        let fromCache = entries.compactMap { $0["_fromCache"] as? String }
        #expect(fromCache.sorted() == ["cache", "revalidated"])
    }

    /// A ``CachedFetch`` that prints its debug output.
    final class Printed: CachedFetch, @unchecked Sendable {
        override var isDebugOutputEnabled: Bool? { true }
    }

    @Test("debug output says an answer came from the cache, and says nothing of the kind for the network's")
    func debugOutputNamesTheSource() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/printed") { _ in
            HTTPCacheWireTests.response(Data("p".utf8), ["Cache-Control": "max-age=600"])
        }
        DebugCapture.install()
        let client = ConnectionClient.ownForTests(label: "cache-printed", httpCache: .inMemory())
        let first = Printed(server.url("/printed"), client: client)
        _ = try await first.value()
        let second = Printed(server.url("/printed"), client: client)
        _ = try await second.value()
        let network = DebugCapture.blocks(for: first.identifier).joined(separator: "\n")
        let cached = DebugCapture.blocks(for: second.identifier).joined(separator: "\n")
        #expect(second.responseSource == .cache)
        #expect(cached.contains("source: HTTP cache (fresh, nothing sent)"), "\(cached)")
        #expect(!network.isEmpty && !network.contains("source:"), "\(network)")
    }
}
