import Foundation

@testable import ConnectionKit

/// Entries and requests for the cache tests, with times fixed so that ages are exact.
enum CacheFixtures {
    static let base = Date(timeIntervalSince1970: 1_700_000_000)
    static let url = URL(string: "https://api.example.com/events?page=1")!

    static func httpDate(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }

    static func request(_ headers: [String: String] = [:], method: String = "GET", url: URL = url) -> HTTPCacheRequest {
        HTTPCacheRequest(method: method, url: url, headerFields: headers)
    }

    /// An entry fetched at `base` (sent then, answered then, `Date: base`) with `headers` added.
    static func entry(_ headers: [String: String], status: Int = 200, responseTime: Date = base) -> HTTPCacheEntry {
        var fields = ["date": httpDate(responseTime)]
        for (name, value) in headers { fields[name.lowercased()] = value }
        return HTTPCacheEntry(
            url: url.absoluteString, method: "GET", status: status, headers: fields, requestTime: responseTime,
            responseTime: responseTime, vary: [], partition: "", body: Data("body".utf8))
    }

    static func folder() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("ck-cache-\(UUID().uuidString)")
    }
}
