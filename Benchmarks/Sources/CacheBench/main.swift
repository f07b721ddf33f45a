// CacheBench: what an HTTPCache hit costs on this machine, next to the loopback request it replaces.
//
//     swift run -c release --package-path Benchmarks CacheBench [--lookups N] [--rounds N] [--body BYTES]
//                                                              [--only memory|disk|loopback|requests|hits|network]
//
// Rows: `hit, memory` and `hit, disk` are `HTTPCache.lookup` of a fresh stored GET (a 4 KiB body by default),
// in microseconds per lookup over N lookups (default 20000); the disk store reads, checksums and decodes the
// entry file on every hit (the OS page cache holds it). `loopback GET` is a `BasicConnectionRequest` GET of
// the same body from the in-process TestServer, microseconds per request over N/100 sequential requests: the
// request a hit replaces. The `requests` rows go through the request path of a client with an in-memory
// cache, per transport (URLSession, and libcurl where it loads), N/100 sequential requests each, µs per
// request: `network` a class on networkOnly (the request a hit replaces), `miss` a GET of a new URL each
// time (looked up, sent, stored), `hit` a fresh stored GET (nothing sent), `hit heuristic` one fresh only by
// its `Last-Modified` (RFC 9111 §4.2.2, as nginx serves a file), `revalidated` a stale one answered
// by a 304 (sent with If-None-Match, the stored body delivered); `--only hits` (or `network`) runs those rows alone (to
// profile them). CACHEBENCH_NO_HISTORY=1 turns the clients'
// history and statistics off (what recording an ending costs). Each row prints the median of --rounds
// rounds (default 5), then every round.
import ConnectionKit
import ConnectionKitTesting
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

struct Options {
    var lookups = 20_000
    var rounds = 5
    var bodySize = 4_096
    var only: String?

    init(_ arguments: [String]) {
        var iterator = arguments.makeIterator()
        while let argument = iterator.next() {
            let value = iterator.next() ?? ""
            switch argument {
            case "--lookups": lookups = max(100, Int(value) ?? lookups)
            case "--rounds": rounds = max(1, Int(value) ?? rounds)
            case "--body": bodySize = max(0, Int(value) ?? bodySize)
            case "--only": only = value
            default:
                FileHandle.standardError.write(Data("unknown option \(argument)\n".utf8))
                exit(2)
            }
        }
    }
}

/// Microseconds per call of `body`, run `count` times.
func microseconds(per count: Int, _ body: () throws -> Void) rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    for _ in 0..<count { try body() }
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1_000 / Double(count)
}

func hitCost(_ cache: HTTPCache, options: Options) -> Double {
    let request = HTTPCacheRequest(url: URL(string: "https://api.example.com/events?page=1")!)
    let now = Date()
    cache.store(
        statusCode: 200, headerFields: ["Cache-Control": "max-age=86400", "ETag": "\"v1\""],
        body: Data(repeating: 0x61, count: options.bodySize), for: request, requestTime: now, responseTime: now)
    return microseconds(per: options.lookups) {
        guard case .fresh = cache.lookup(request) else { fatalError("the stored response was not a fresh hit") }
    }
}

func loopbackCost(_ server: TestServer, options: Options) async throws -> Double {
    let url = server.baseURL.appendingPathComponent("events")
    let count = max(20, options.lookups / 100)
    let start = DispatchTime.now().uptimeNanoseconds
    for _ in 0..<count {
        _ = try await BasicConnectionRequest(request: URLRequest(url: url)).value()
    }
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1_000 / Double(count)
}

func report(_ name: String, _ rounds: [Double]) {
    let median = rounds.sorted()[rounds.count / 2]
    let each = rounds.map { String(format: "%.2f", $0) }.joined(separator: " ")
    print(String(format: "%-24@ %10.2f µs   (rounds: %@)", name as NSString, median, each as NSString))
}

let options = Options(Array(CommandLine.arguments.dropFirst()))
print("CacheBench: \(options.lookups) lookups per round, \(options.rounds) rounds, body \(options.bodySize) bytes")
if options.only == nil || options.only == "memory" {
    report("hit, memory", (0..<options.rounds).map { _ in hitCost(.inMemory(), options: options) })
}
if options.only == nil || options.only == "disk" {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("CacheBench-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: folder) }
    let cache = try HTTPCache(folder: folder)
    report("hit, disk", (0..<options.rounds).map { _ in hitCost(cache, options: options) })
}
if options.only == nil || options.only == "requests" || options.only == "hits" || options.only == "network" {
    try await requestRows(options: options)
}
if options.only == nil || options.only == "loopback" {
    let server = try TestServer.started()
    defer { server.stop() }
    let body = String(repeating: "a", count: options.bodySize)
    server.route("GET", "/events") { _ in .text(body) }
    var rounds: [Double] = []
    for _ in 0..<options.rounds { rounds.append(try await loopbackCost(server, options: options)) }
    report("loopback GET", rounds)
}
