import ConnectionKit
import ConnectionKitTesting
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A GET of the benchmark's client, with the policy a row asks for.
final class CachedGet: ConnectionRequest<Data>, @unchecked Sendable {
    // Safe: only immutable stored properties.
    let target: URL
    let owner: ConnectionClient
    let policy: HTTPCachePolicy
    init(_ target: URL, client: ConnectionClient, policy: HTTPCachePolicy) {
        self.target = target
        self.owner = client
        self.policy = policy
        super.init()
    }
    override var url: URL? { target }
    override var client: ConnectionClient { owner }
    override var cachePolicy: HTTPCachePolicy { policy }
}

/// Microseconds per request of `count` sequential requests made by `make(index)`.
func requestCost(count: Int, expect source: ResponseSource, _ make: (Int) -> CachedGet) async throws -> Double {
    // One request first: connections open, the entry stored.
    _ = try await make(-1).value()
    let start = DispatchTime.now().uptimeNanoseconds
    for index in 0..<count {
        let request = make(index)
        _ = try await request.value()
        guard request.responseSource == source else {
            throw CocoaError(
                .featureUnsupported,
                userInfo: [
                    NSLocalizedDescriptionKey: "expected \(source), got \(String(describing: request.responseSource))"
                ])
        }
    }
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1_000 / Double(count)
}

/// The `requests` rows on each transport that loads.
func requestRows(options: Options) async throws {
    let server = try TestServer.started()
    defer { server.stop() }
    let body = Data(repeating: 0x61, count: options.bodySize)
    server.route("GET", "/fresh") { _ in
        TestResponse(headers: [TestHeader("Cache-Control", "max-age=86400")], body: .data(body))
    }
    // Heuristically fresh (RFC 9111 §4.2.2): only validators, as a static file server such as nginx sends them.
    let modified = Date(timeIntervalSinceNow: -30 * 86_400)
    let lastModified = httpDate(modified)
    server.route("GET", "/heuristic") { _ in
        TestResponse(
            headers: [TestHeader("ETag", "\"h1\""), TestHeader("Last-Modified", lastModified)], body: .data(body))
    }
    server.route("GET", "/stale") { request in
        if request.header("If-None-Match") == "\"v1\"" {
            return TestResponse(status: 304, headers: [TestHeader("ETag", "\"v1\"")])
        }
        return TestResponse(
            headers: [TestHeader("Cache-Control", "max-age=0"), TestHeader("ETag", "\"v1\"")], body: .data(body))
    }
    var clients = [
        ("URLSession", ConnectionClient(label: "bench-urlsession", httpCache: .inMemory(maximumBytes: 256 << 20)))
    ]
    if let curl = try? ConnectionClient(
        checking: .libcurl, label: "bench-curl", httpCache: .inMemory(maximumBytes: 256 << 20))
    {
        clients.append(("libcurl", curl))
    }
    let count = max(20, options.lookups / 100)
    let quiet = ProcessInfo.processInfo.environment["CACHEBENCH_NO_HISTORY"] != nil
    for (name, client) in clients {
        if quiet {
            client.registry.historyCapacity = 0
            client.registry.isRecordingStatistics = false
        }
        let fresh = server.url("/fresh")
        let stale = server.url("/stale")
        let heuristic = server.url("/heuristic")
        var rows: [(String, [Double])] = [
            ("network", []), ("miss", []), ("hit", []), ("hit heuristic", []), ("revalidated", []),
        ]
        // `--only hits` / `--only network`: that row alone, to profile it.
        let wanted = options.only == "hits" ? "hit" : options.only == "network" ? "network" : nil
        for round in 0..<options.rounds {
            for index in rows.indices where wanted == nil || rows[index].0.hasPrefix(wanted ?? "") {
                let cost: Double
                switch rows[index].0 {
                case "network":
                    cost = try await requestCost(count: count, expect: .network) { _ in
                        CachedGet(fresh, client: client, policy: .networkOnly)
                    }
                case "miss":
                    cost = try await requestCost(count: count, expect: .network) { index in
                        CachedGet(server.url("/fresh?round=\(round)&n=\(index)"), client: client, policy: .useCache)
                    }
                case "hit":
                    cost = try await requestCost(count: count, expect: .cache) { _ in
                        CachedGet(fresh, client: client, policy: .useCache)
                    }
                case "hit heuristic":
                    cost = try await requestCost(count: count, expect: .cache) { _ in
                        CachedGet(heuristic, client: client, policy: .useCache)
                    }
                default:
                    cost = try await requestCost(count: count, expect: .revalidated) { _ in
                        CachedGet(stale, client: client, policy: .useCache)
                    }
                }
                rows[index].1.append(cost)
            }
        }
        for (row, rounds) in rows where !rounds.isEmpty { report("\(name) \(row)", rounds) }
        await client.shutdown()
    }
}

/// `date` as an IMF-fixdate (RFC 9110 §5.6.7), for a `Last-Modified` field.
func httpDate(_ date: Date) -> String {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "GMT")
    formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
    return formatter.string(from: date)
}
