import Foundation

/// The calls a request makes on its way: look up, store, revalidate, fall back, invalidate.
extension HTTPCache {
    /// What the cache can answer for `request` before it goes to the network (a `GET`, or a `HEAD` answered
    /// from a stored `GET`; any other method is a ``HTTPCacheLookup/miss``).
    public func lookup(_ request: HTTPCacheRequest, now: Date = Date()) -> HTTPCacheLookup {
        guard let entry = storedEntry(for: request) else { return .miss }
        let lifetime = HTTPCacheRules.freshnessLifetime(entry)
        let age = HTTPCacheRules.currentAge(entry, now: now)
        let response = cachedResponse(entry, for: request, lifetime: lifetime, age: age)
        let conditions = HTTPCacheRules.conditionalHeaders(for: entry)
        switch HTTPCacheRules.use(of: entry, for: request, lifetime: lifetime, age: age) {
        case .fresh: return .fresh(response)
        case .staleWhileRevalidate: return .staleWhileRevalidate(response, conditionalHeaders: conditions)
        case .revalidate: return .revalidate(response, conditionalHeaders: conditions)
        }
    }

    /// Stores a response to `request` when RFC 9111 allows it, and says whether it did.
    ///
    /// `requestTime` is when the request was sent and `responseTime` when its header arrived: they make the
    /// age right (RFC 9111 §4.2.3). `Set-Cookie`, hop-by-hop fields and the fields `Connection` names are left
    /// out; credentials are kept only as a digest (``HTTPCacheRequest/secretHeaderNames``). A body that may be
    /// incomplete is not stored: one shorter or longer than its unencoded `Content-Length`, or a `3xx` body
    /// without such a length to check it against.
    @discardableResult
    public func store(
        statusCode: Int, headerFields: [String: String], body: Data, for request: HTTPCacheRequest,
        requestTime: Date, responseTime: Date
    ) -> Bool {
        let fields = HTTPCacheRules.normalized(headerFields)
        guard HTTPCacheRules.isStorable(request: request, status: statusCode, headers: fields),
            HTTPCacheRules.bodyIsComplete(status: statusCode, headers: fields, bodyLength: body.count),
            let names = HTTPCacheRules.varyNames(fields)
        else { return false }
        let url = HTTPCacheRules.storedURL(request)
        let partition = HTTPCacheRules.partition(of: request)
        let entry = HTTPCacheEntry(
            url: url, method: "GET", status: statusCode, headers: HTTPCacheRules.storedHeaders(fields),
            requestTime: requestTime, responseTime: responseTime,
            vary: HTTPCacheRules.varyValues(names: names, request: request), partition: partition, body: body)
        save(entry)
        return true
    }

    /// Answers a `304 Not Modified` to a conditional request: updates the stored response's fields and times
    /// (RFC 9111 §4.3.4) and returns it, or `nil` when nothing matching is stored (then send the request
    /// again without conditions).
    public func revalidated(
        _ request: HTTPCacheRequest, notModifiedHeaderFields: [String: String], requestTime: Date, responseTime: Date
    ) -> HTTPCachedResponse? {
        guard let entry = storedEntry(for: request),
            let updated = HTTPCacheRules.updated(
                entry, notModifiedHeaders: notModifiedHeaderFields, requestTime: requestTime,
                responseTime: responseTime)
        else { return nil }
        save(updated)
        return cachedResponse(updated, for: request, now: responseTime)
    }

    /// The stored response that may answer when the network failed (an error, or a `500`, `502`, `503` or
    /// `504`), under `policy`: `stale-if-error` for ``HTTPCachePolicy/useCache``, anything stored for
    /// ``HTTPCachePolicy/offlineFirst`` (check ``HTTPCachedResponse/isStale``).
    public func fallback(for request: HTTPCacheRequest, policy: HTTPCachePolicy, now: Date = Date())
        -> HTTPCachedResponse?
    {
        guard let entry = storedEntry(for: request),
            HTTPCacheRules.answersOnFailure(entry, for: request, policy: policy, now: now)
        else { return nil }
        return cachedResponse(entry, for: request, now: now)
    }

    /// Removes what an unsafe request (`POST`, `PUT`, `PATCH`, `DELETE`, ...) answered with a 2xx or 3xx made
    /// out of date: its URL, and its `Location` and `Content-Location` on the same origin (RFC 9111 §4.4).
    public func invalidate(after request: HTTPCacheRequest, statusCode: Int, headerFields: [String: String]) {
        for url in HTTPCacheRules.invalidatedURLs(request: request, status: statusCode, headers: headerFields) {
            store.removeEntries(forURLKey: HTTPCacheRules.urlKey(url))
        }
    }

    /// The entry stored for `request`'s URL and partition whose `Vary` values match, if any: the latest one
    /// stored, or the variant its `Vary` names select for the request's values.
    func storedEntry(for request: HTTPCacheRequest) -> HTTPCacheEntry? {
        guard request.method == "GET" || request.method == "HEAD" else { return nil }
        let url = HTTPCacheRules.storedURL(request)
        let partition = HTTPCacheRules.partition(of: request)
        let key = HTTPCacheRules.key(storedURL: url, partition: partition)
        // A key names its entry only through a digest: the entry itself must say it is this URL's and partition's.
        let stored = { (key: String) in
            self.store.entry(forKey: key).flatMap { $0.url == url && $0.partition == partition ? $0 : nil }
        }
        guard let latest = stored(key) else { return nil }
        if HTTPCacheRules.varyMatches(latest, request: request) { return latest }
        // The variants of one URL vary on the same fields (those of the latest one): the request's values
        // of them name its variant.
        guard let names = HTTPCacheRules.varyNames(latest.headers), !names.isEmpty,
            let variant = stored(
                HTTPCacheRules.variantKey(key, vary: HTTPCacheRules.varyValues(names: names, request: request))),
            HTTPCacheRules.varyMatches(variant, request: request)
        else { return nil }
        return variant
    }

    /// Stores `entry` under its URL and partition, where it is the latest variant whose `Vary` names select
    /// the others, and, when it varies, under its variant's own key too, so that a response for other values
    /// of the selecting fields does not replace it.
    private func save(_ entry: HTTPCacheEntry) {
        let key = HTTPCacheRules.key(storedURL: entry.url, partition: entry.partition)
        store.store(entry, forKey: key)
        if !entry.vary.isEmpty { store.store(entry, forKey: HTTPCacheRules.variantKey(key, vary: entry.vary)) }
    }

    private func cachedResponse(_ entry: HTTPCacheEntry, for request: HTTPCacheRequest, now: Date)
        -> HTTPCachedResponse
    {
        cachedResponse(
            entry, for: request, lifetime: HTTPCacheRules.freshnessLifetime(entry),
            age: HTTPCacheRules.currentAge(entry, now: now))
    }

    private func cachedResponse(
        _ entry: HTTPCacheEntry, for request: HTTPCacheRequest, lifetime: TimeInterval, age: TimeInterval
    ) -> HTTPCachedResponse {
        HTTPCachedResponse(
            statusCode: entry.status, headerFields: entry.headers, body: request.method == "HEAD" ? Data() : entry.body,
            age: age, isStale: age >= lifetime)
    }
}
