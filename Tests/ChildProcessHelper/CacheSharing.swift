import ConnectionKit
import Foundation

/// One side of the shared-cache-folder test: stores responses of one URL whose bodies describe themselves
/// (every byte is `fill`, the length is in `x-length`), and after each store looks the URL up; an answer whose
/// body does not match its own fields is a torn entry. The test process runs the same loop with another fill.
enum CacheSharing {
    static let url = URL(string: "https://shared.example/feed")!

    /// Runs `count` store-then-lookup rounds; returns how many answers were torn (0 when the cache is sound).
    static func run(folder: URL, fill: UInt8, count: Int, log: @escaping @Sendable (String) -> Void) -> Int {
        guard let cache = try? HTTPCache(folder: folder, maximumBytes: 8 << 20, log: log) else {
            log("could not open the cache")
            return -1
        }
        let request = HTTPCacheRequest(url: url)
        var torn = 0
        for index in 0..<count {
            let length = 1_000 + (index * 7_919) % 60_000
            let now = Date()
            cache.store(
                statusCode: 200,
                headerFields: ["Cache-Control": "max-age=600", "X-Fill": "\(fill)", "X-Length": "\(length)"],
                body: Data(repeating: fill, count: length), for: request, requestTime: now, responseTime: now)
            if case .fresh(let response) = cache.lookup(request), !isWhole(response) { torn += 1 }
        }
        return torn
    }

    /// Whether a body matches the fields stored with it.
    static func isWhole(_ response: HTTPCachedResponse) -> Bool {
        guard let fill = response.headerFields["x-fill"].flatMap(UInt8.init),
            let length = response.headerFields["x-length"].flatMap(Int.init)
        else { return false }
        return response.body.count == length && response.body.allSatisfy { $0 == fill }
    }
}
