import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension AnyConnectionRequest {
    // MARK: - Before an attempt

    /// Asks the class's ``httpCache`` about the attempt about to be sent as `request`. Returns the stored
    /// response that answers it without waiting for the network (fresh, or stale within
    /// `stale-while-revalidate`, which also starts a refresh behind); otherwise adds the conditions of a
    /// stored response that must be revalidated to `request` and returns `nil`.
    func consultCache(_ request: inout URLRequest) -> (response: HTTPCachedResponse, source: ResponseSource)? {
        let attempt = makeCacheAttempt(for: request)
        storage.withLock { $0.cacheAttempt = attempt }
        guard let attempt, attempt.answers else { return nil }
        switch attempt.cache.lookup(attempt.request) {
        case .miss:
            return nil
        case .fresh(let response):
            return (response, .cache)
        case .staleWhileRevalidate(let response, _):
            CacheRevalidationRequest.start(for: self, request: request)
            return (response, .staleCache)
        case .revalidate(_, let conditions):
            // After a `304` that confirmed no stored response, the run sends without conditions: with them, the
            // server would answer the same `304` again.
            guard !storage.withLock({ $0.resentAfterLostEntry }) else { return nil }
            for (name, value) in conditions { request.setValue(value, forHTTPHeaderField: name) }
            storage.withLock { $0.cacheAttempt?.revalidating = !conditions.isEmpty }
            return nil
        }
    }

    /// Header fields that make a request the cache must not answer: the request asks for a condition or a
    /// range of its own.
    private static let ownConditions = [
        "If-None-Match", "If-Modified-Since", "If-Match", "If-Unmodified-Since", "If-Range", "Range",
    ]

    /// The cache's view of the attempt, or `nil` when the class has no cache. Reads the hooks (user code)
    /// outside every lock.
    private func makeCacheAttempt(for request: URLRequest) -> CacheAttempt? {
        guard let cache = httpCache, let url = request.url else { return nil }
        let policy = cachePolicy
        let method = request.httpMethod ?? "GET"
        // The jar's cookies are added when the transfer begins; they partition the entry all the same.
        var withCookies = request
        addJarCookies(to: &withCookies)
        let cacheRequest = HTTPCacheRequest(
            method: method, url: url, headerFields: withCookies.allHTTPHeaderFields ?? [:],
            secretHeaderNames: secretHeaderFields, secretQueryItemNames: secretQueryItems)
        let inMemory = fileDestination == nil && !isStreaming
        let conditional = Self.ownConditions.contains { request.value(forHTTPHeaderField: $0) != nil }
        let answers =
            policy != .networkOnly && inMemory && !conditional
            && (cacheRequest.method == "GET" || cacheRequest.method == "HEAD")
        return CacheAttempt(cache: cache, policy: policy, request: cacheRequest, answers: answers, sentAt: Date())
    }

    // MARK: - Answering from the cache

    /// Answers `run` with `cached` (``answerWithoutNetwork(_:body:request:run:)``), its age said in an
    /// `Age` field. Returns `false` when the run is not between transfers: then nothing was done.
    @discardableResult
    func answerFromCache(
        _ cached: HTTPCachedResponse, source: ResponseSource, request: URLRequest, run: RunNumber
    ) -> Bool {
        var fields = cached.headerFields
        // RFC 9111 §5.1: a response from a cache says its age.
        fields["age"] = String(Int(min(max(cached.age, 0), Double(Int32.max))))
        let response = TransportResponse(
            url: request.url, statusCode: cached.statusCode, httpVersion: "HTTP/1.1",
            head: ResponseHead(fields: fields),
            source: source)
        return answerWithoutNetwork(response, body: cached.body, request: request, run: run)
    }

    /// Whether the run's cache attempt may still answer after a failure: looked up for this run, under a
    /// policy that answers, and not used for that yet. Whether something stored may answer is known only
    /// once ``answerFromCacheAfterFailure(run:error:response:)`` looks.
    var mayAnswerFromCacheAfterFailure: Bool {
        storage.withLock { $0.cacheAttempt?.mayFallBack ?? false }
    }

    /// When the network failed (a transport error, a timeout, or a `500`, `502`, `503`, `504`) and the run
    /// is about to end: answers from the stored response the policy allows (`stale-if-error`, or anything
    /// under ``HTTPCachePolicy/offlineFirst``) and returns `true`; `false` to fail as before.
    func answerFromCacheAfterFailure(run: RunNumber, error: ConnectionError, response: ConnectionResponse?) -> Bool {
        let serverFailed = response.map { $0.source == .network && [500, 502, 503, 504].contains($0.statusCode) }
        guard error.kind == .transport || error.kind == .timedOut || serverFailed == true else { return false }
        let claimed: (attempt: CacheAttempt, request: URLRequest)? = storage.withLock { state in
            guard let attempt = state.cacheAttempt, attempt.mayFallBack,
                let request = state.sentRequest ?? state.attemptRequest
            else { return nil }
            state.cacheAttempt?.fellBack = true
            return (attempt, request)
        }
        guard let claimed,
            let cached = claimed.attempt.cache.fallback(for: claimed.attempt.request, policy: claimed.attempt.policy)
        else { return false }
        // Not between transfers (cancelled meanwhile): the caller's `finish` ends the run, or finds it ended.
        return answerFromCache(
            cached, source: cached.isStale ? .staleCache : .cache, request: claimed.request, run: run)
    }

    // MARK: - After a response

    /// The final response of a transfer, as the cache changes it. An unsafe request's response first
    /// removes the stored responses it made out of date. A `304 Not Modified` to the conditions the cache
    /// added becomes the stored response, its fields updated by the `304` (RFC 9111 §4.3.4), with its
    /// status (a `200`) and its body, so that validation does not see a `304`. Anything else is unchanged.
    func applyingCache(
        to response: TransportResponse, sink: (any BodySink)?, transfer: TransferNumber
    ) -> (response: TransportResponse, sink: (any BodySink)?) {
        invalidateCache(after: response)
        guard response.statusCode == 304,
            let attempt = storage.withLock({ $0.redirectCount == 0 ? $0.cacheAttempt : nil }), attempt.revalidating,
            let updated = attempt.cache.revalidated(
                attempt.request, notModifiedHeaderFields: response.head.fields, requestTime: attempt.sentAt,
                responseTime: Date())
        else { return (response, sink) }
        sink?.discard()
        let swapped = TransportResponse(
            url: response.url, statusCode: updated.statusCode, httpVersion: response.httpVersion,
            head: ResponseHead(fields: updated.headerFields), source: .revalidated)
        let memory = MemorySink(limit: .max, expectedLength: Int64(updated.body.count))
        _ = try? memory.append(updated.body)
        storage.withLock { state in
            if state.response === response { state.response = swapped }
        }
        return (swapped, memory)
    }

    /// When `answer` is a `304` to the conditions the cache added but confirms no stored response (it is
    /// gone: evicted, or removed by another request, since the lookup; or the `304` names another strong
    /// `ETag`), there is nothing to answer with: the request is sent again at once, without conditions (RFC
    /// 9111 §4.3.4), once per run, and this returns `true`. The rest of the run's attempts carry no
    /// conditions either (``consultCache(_:)``). A second such `304` in the run reaches validation as any
    /// `304` does.
    func resendAfterLostEntry(_ answer: TransportResponse, run: RunNumber) -> Bool {
        guard answer.statusCode == 304, answer.source == .network else { return false }
        let claimed = storage.withLock { state in
            guard state.cacheAttempt?.revalidating == true, state.redirectCount == 0, !state.resentAfterLostEntry
            else { return false }
            state.resentAfterLostEntry = true
            return true
        }
        guard claimed else { return false }
        scheduleRetry(run: run, after: 0, error: ConnectionError(.unacceptableStatusCode(304, body: nil)))
        return true
    }

    /// An unsafe request's response removes the stored responses it made out of date (RFC 9111 §4.4),
    /// whatever the class's policy.
    private func invalidateCache(after response: TransportResponse) {
        guard response.source == .network, let attempt = storage.withLock({ $0.cacheAttempt }) else { return }
        attempt.cache.invalidate(
            after: attempt.request, statusCode: response.statusCode, headerFields: response.head.fields)
    }

    /// Stores a network response the class accepted (validated and parsed), when its body is in memory and
    /// RFC 9111 allows it. A response that followed a redirect is not stored under the first URL.
    func storeInCache(_ response: TransportResponse, body: CompletedBody) {
        guard response.source == .network, case .memory(let data) = body,
            let attempt = storage.withLock({ $0.redirectCount == 0 ? $0.cacheAttempt : nil }), attempt.answers
        else { return }
        attempt.cache.store(
            statusCode: response.statusCode, headerFields: response.head.fields, body: data, for: attempt.request,
            requestTime: attempt.sentAt, responseTime: Date())
    }
}
