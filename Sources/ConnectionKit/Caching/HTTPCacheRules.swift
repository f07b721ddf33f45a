import Foundation

/// RFC 9111 (HTTP caching) and RFC 5861 (`stale-while-revalidate`, `stale-if-error`) as a private cache
/// applies them: pure functions of header fields and times, so that each rule is tested on its own.
enum HTTPCacheRules {
    /// Status codes cacheable by default (RFC 9110 §15.1), less `206`: ranges are never stored.
    static let cacheableByDefault: Set<Int> = [200, 203, 204, 300, 301, 308, 404, 405, 410, 414, 501]
    /// The longest heuristic freshness (10% of the time since `Last-Modified`) given: a day.
    static let heuristicLimit: TimeInterval = 86_400
    /// Fields that describe one connection (RFC 9110 §7.6.1) or must never be kept: not stored, not updated.
    static let unstoredFields: Set<String> = [
        "connection", "keep-alive", "proxy-connection", "te", "trailer", "transfer-encoding", "upgrade",
        "set-cookie", "set-cookie2", "proxy-authenticate", "proxy-authorization",
    ]
    /// Methods that do not change the resource (RFC 9110 §9.2.1): they invalidate nothing.
    static let safeMethods: Set<String> = ["GET", "HEAD", "OPTIONS", "TRACE"]

    /// Header fields keyed by lowercased name, duplicates joined with `, `.
    static func normalized(_ fields: [String: String]) -> [String: String] {
        var result: [String: String] = [:]
        for (name, value) in fields {
            let key = name.lowercased()
            result[key] = result[key].map { "\($0), \(value)" } ?? value
        }
        return result
    }

    // MARK: - Storing (RFC 9111 §3)

    /// Statuses whose caching requirements this cache implements, for `must-understand` (RFC 9111 §5.2.2.3):
    /// those cacheable by default, and the redirects it stores only with explicit freshness.
    static let understoodStatuses: Set<Int> = cacheableByDefault.union([302, 307])

    /// Whether a response may be stored: a `GET`, a final status other than `206`/`304`, no `no-store` on
    /// either side, no `Vary: *`, and a status cacheable by default or made cacheable by `max-age`,
    /// `Expires`, `public` or `private` (this is a private cache). With `must-understand`, the response's
    /// `no-store` is ignored when the status is in ``understoodStatuses`` and the response is never stored
    /// otherwise (RFC 9111 §5.2.2.3).
    static func isStorable(request: HTTPCacheRequest, status: Int, headers: [String: String]) -> Bool {
        guard request.method == "GET", (200...599).contains(status), status != 206, status != 304 else {
            return false
        }
        let control = CacheControl(headers["cache-control"])
        if control.has("must-understand") {
            guard understoodStatuses.contains(status) else { return false }
        } else if control.has("no-store") {
            return false
        }
        if CacheControl(request.headerFields["cache-control"]).has("no-store") { return false }
        if varyNames(headers) == nil { return false }
        if cacheableByDefault.contains(status) { return true }
        return control.has("public") || control.has("private") || control.seconds("max-age") != .absent
            || headers["expires"] != nil
    }

    /// The fields to store: all but ``unstoredFields`` and those the response's `Connection` field names,
    /// which describe the connection it came on, not the response (RFC 9111 §3.1).
    static func storedHeaders(_ headers: [String: String]) -> [String: String] {
        let connectionFields = connectionNamedFields(headers)
        return headers.filter { !unstoredFields.contains($0.key) && !connectionFields.contains($0.key) }
    }

    /// The lowercased field names that the `Connection` field of `headers` (lowercased names) lists.
    static func connectionNamedFields(_ headers: [String: String]) -> Set<String> {
        guard let connection = headers["connection"] else { return [] }
        var names: Set<String> = []
        for name in connection.split(separator: ",") {
            let trimmed = name.trimmingCharacters(in: .whitespaces).lowercased()
            if !trimmed.isEmpty { names.insert(trimmed) }
        }
        return names
    }

    /// Whether a body of `bodyLength` bytes is known to be the whole body the response sent. A `3xx` is
    /// stored only when it is: a transport may hand over a redirect's head without its body (URLSession on
    /// Linux does, for a `3xx` without `Location`), so its length must be checked against a `Content-Length`
    /// of an unencoded body. Any other status is trusted unless such a `Content-Length` disagrees.
    static func bodyIsComplete(status: Int, headers: [String: String], bodyLength: Int) -> Bool {
        let declared = headers["content-encoding"] == nil ? headers["content-length"].flatMap { Int($0) } : nil
        if let declared { return declared == bodyLength }
        return !(300...399).contains(status)
    }

    // MARK: - Freshness (RFC 9111 §4.2)

    /// The freshness lifetime in seconds: `max-age`, else `Expires` − `Date`, else 10% of `Date` −
    /// `Last-Modified` (capped at ``heuristicLimit``) for a status cacheable by default or a `public`
    /// response, else 0. An invalid `max-age` or `Expires` makes the response stale (§4.2.1, §5.3).
    static func freshnessLifetime(_ entry: HTTPCacheEntry) -> TimeInterval {
        let control = CacheControl(entry.headers["cache-control"])
        switch control.seconds("max-age") {
        case .value(let seconds): return TimeInterval(seconds)
        case .invalid: return 0
        case .absent: break
        }
        let date = entry.headers["date"].flatMap(HTTPDate.parse) ?? entry.responseTime
        if let expires = entry.headers["expires"] {
            guard let expiry = HTTPDate.parse(expires) else { return 0 }
            return max(0, expiry.timeIntervalSince(date))
        }
        guard cacheableByDefault.contains(entry.status) || control.has("public"),
            let modified = entry.headers["last-modified"].flatMap(HTTPDate.parse)
        else { return 0 }
        return min(heuristicLimit, max(0, date.timeIntervalSince(modified)) / 10)
    }

    /// The current age in seconds (RFC 9111 §4.2.3), from `Age`, `Date` and the request and response times.
    static func currentAge(_ entry: HTTPCacheEntry, now: Date) -> TimeInterval {
        let date = entry.headers["date"].flatMap(HTTPDate.parse) ?? entry.responseTime
        let ageValue = entry.headers["age"].flatMap { CacheControl.deltaSeconds(firstValue($0)) } ?? 0
        let apparentAge = max(0, entry.responseTime.timeIntervalSince(date))
        let responseDelay = max(0, entry.responseTime.timeIntervalSince(entry.requestTime))
        let correctedInitialAge = max(apparentAge, TimeInterval(ageValue) + responseDelay)
        return correctedInitialAge + max(0, now.timeIntervalSince(entry.responseTime))
    }

    private static func firstValue(_ field: String) -> String {
        String(field.split(separator: ",", omittingEmptySubsequences: false).first ?? "")
            .trimmingCharacters(in: .whitespaces)
    }
}
