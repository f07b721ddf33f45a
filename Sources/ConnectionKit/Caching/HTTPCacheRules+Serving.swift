import Foundation

/// Whether a stored response may answer a request (RFC 9111 §4.2, §4.2.4, §5.2; RFC 5861; RFC 8246).
extension HTTPCacheRules {
    /// What to do with a stored response that matches the request.
    enum Use: Equatable, Sendable {
        /// Fresh: answer without the network.
        case fresh
        /// Stale within `stale-while-revalidate`: answer now, revalidate in the background.
        case staleWhileRevalidate
        /// Must be revalidated before it answers.
        case revalidate
    }

    /// Decides how `entry` may answer `request` at `now`.
    ///
    /// `no-cache` on the response, or a stale response with `must-revalidate`, always revalidates. A fresh
    /// `immutable` response answers even a request with `no-cache` or `max-age=0` (a reload). Otherwise the
    /// request's `no-cache`, `max-age` and `min-fresh` can ask for a fresher answer.
    static func use(of entry: HTTPCacheEntry, for request: HTTPCacheRequest, now: Date) -> Use {
        use(of: entry, for: request, lifetime: freshnessLifetime(entry), age: currentAge(entry, now: now))
    }

    /// ``use(of:for:now:)`` with the entry's freshness lifetime and current age already computed (a lookup
    /// needs them for its answer too, and parsing `Date` is most of a hit's cost).
    static func use(of entry: HTTPCacheEntry, for request: HTTPCacheRequest, lifetime: TimeInterval, age: TimeInterval)
        -> Use
    {
        let control = CacheControl(entry.headers["cache-control"])
        let isFresh = lifetime > age
        if control.has("no-cache") { return .revalidate }
        if isFresh && control.has("immutable") { return .fresh }
        let requestControl = CacheControl(request.headerFields["cache-control"])
        if requestControl.has("no-cache") { return .revalidate }
        if case .value(let maximumAge) = requestControl.seconds("max-age"), age > TimeInterval(maximumAge) {
            return .revalidate
        }
        if case .value(let minimumFresh) = requestControl.seconds("min-fresh"),
            lifetime - age < TimeInterval(minimumFresh)
        {
            return .revalidate
        }
        if isFresh { return .fresh }
        if control.has("must-revalidate") { return .revalidate }
        if case .value(let window) = control.seconds("stale-while-revalidate"), age - lifetime <= TimeInterval(window) {
            return .staleWhileRevalidate
        }
        return .revalidate
    }

    /// Whether `entry` may answer `request` when the network failed (an error, or a `500`, `502`, `503` or
    /// `504`): with ``HTTPCachePolicy/offlineFirst`` always; with ``HTTPCachePolicy/useCache`` while the
    /// staleness is within the response's or the request's `stale-if-error` (RFC 5861 §4), unless the
    /// response says `must-revalidate` or `no-cache`; never with ``HTTPCachePolicy/networkOnly``.
    static func answersOnFailure(
        _ entry: HTTPCacheEntry, for request: HTTPCacheRequest, policy: HTTPCachePolicy, now: Date
    ) -> Bool {
        switch policy {
        case .networkOnly: return false
        case .offlineFirst: return true
        case .useCache: break
        }
        let control = CacheControl(entry.headers["cache-control"])
        if control.has("must-revalidate") || control.has("no-cache") { return false }
        let staleness = currentAge(entry, now: now) - freshnessLifetime(entry)
        if staleness <= 0 { return true }
        let windows = [control, CacheControl(request.headerFields["cache-control"])].compactMap {
            if case .value(let seconds) = $0.seconds("stale-if-error") { return TimeInterval(seconds) }
            return nil
        }
        return windows.contains { staleness <= $0 }
    }

    /// Whether a failed answer lets a stored response stand in for it (RFC 5861 §4: 500, 502, 503, 504).
    static func isFailureStatus(_ status: Int) -> Bool {
        [500, 502, 503, 504].contains(status)
    }
}
