import ConnectionKit
import ConnectionKitTesting
import Foundation
import Testing

@testable import ConnectionKitInspector

/// A GET of a client with an HTTP cache.
final class CacheMetricsProbe: ConnectionRequest<Data>, @unchecked Sendable {
    // Safe: every stored property is a `let` set in init.
    let target: URL
    let owner: ConnectionClient
    init(_ target: URL, client: ConnectionClient) {
        self.target = target
        self.owner = client
    }
    override var url: URL? { target }
    override var client: ConnectionClient { owner }
}

/// `/metrics` counts how the HTTP cache answered, per class.
@Suite(.timeLimit(.minutes(1))) struct InspectorCacheMetricsTests {
    @Test func cacheResultsAreCountedPerClass() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/cached") { _ in
            TestResponse(headers: [TestHeader("Cache-Control", "max-age=600")], body: .data(Data("12345".utf8)))
        }
        let client = ConnectionClient(label: "inspector-cache", httpCache: .inMemory())
        for _ in 0..<3 { _ = try await CacheMetricsProbe(server.url("/cached"), client: client).value() }
        let text = PrometheusText.render(statistics: client.registry.statistics(), inFlight: [:])
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines.contains("# TYPE connectionkit_cache_responses_total counter"))
        #expect(lines.contains(#"connectionkit_cache_responses_total{class="CacheMetricsProbe",result="hit"} 2"#))
        #expect(lines.contains(#"connectionkit_cache_responses_total{class="CacheMetricsProbe",result="miss"} 1"#))
        #expect(
            lines.contains(#"connectionkit_cache_responses_total{class="CacheMetricsProbe",result="revalidated"} 0"#))
        #expect(server.hits("/cached") == 1)
        await client.shutdown()
    }
}
