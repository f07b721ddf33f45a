import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The HTTP-cache stage: answers a fresh `GET` from the class's ``HTTPCache`` without the network, adds the
/// conditions of a stored response that must be revalidated, turns the `304` that confirms it into the stored
/// response, stores what the class accepted, removes what an unsafe method made out of date, and answers a
/// failed run from a stored response when the policy allows (`stale-if-error`, offline first).
final class CacheStage: PipelineStage, @unchecked Sendable {
    // Safe: `cache` is immutable and thread-safe; `state` is locked.
    private let cache: HTTPCache
    private let state = Locked(RunState())

    /// What the stage keeps of the run.
    private struct RunState {
        /// What the cache knows of the current attempt; `nil` before its lookup.
        var attempt: CacheAttempt?
        /// The run already sent a request again because a `304` confirmed a stored response that was gone.
        var resentAfterLostEntry = false
    }

    init(cache: HTTPCache) {
        self.cache = cache
    }

    /// Whether the cache may answer and store the current attempt (the history counts such runs).
    var answers: Bool { state.withLock { $0.attempt?.answers ?? false } }

    func attemptStarted() {
        state.withLock { $0.attempt = nil }
    }

    // MARK: - Before an attempt

    /// Looks the attempt up. Answers it when a stored response may answer without waiting for the network
    /// (fresh, or stale within `stale-while-revalidate`, which also starts a refresh behind); otherwise adds
    /// the conditions of a stored response that must be revalidated to `request` and returns `nil`.
    func prepareAttempt(_ request: inout URLRequest, owner: AnyConnectionRequest) throws -> StageAnswer? {
        let attempt = makeAttempt(for: request, owner: owner)
        state.withLock { $0.attempt = attempt }
        guard let attempt, attempt.answers else { return nil }
        switch cache.lookup(attempt.request) {
        case .miss:
            return nil
        case .fresh(let response):
            return Self.answer(response, source: .cache, request: request)
        case .staleWhileRevalidate(let response, _):
            CacheRevalidationRequest.start(for: owner, request: request)
            return Self.answer(response, source: .staleCache, request: request)
        case .revalidate(_, let conditions):
            // After a `304` that confirmed no stored response, the run sends without conditions: with them, the
            // server would answer the same `304` again.
            guard !state.withLock({ $0.resentAfterLostEntry }) else { return nil }
            for (name, value) in conditions { request.setValue(value, forHTTPHeaderField: name) }
            state.withLock { $0.attempt?.revalidating = !conditions.isEmpty }
            return nil
        }
    }

    /// Header fields that make a request the cache must not answer: the request asks for a condition or a
    /// range of its own.
    private static let ownConditions = [
        "If-None-Match", "If-Modified-Since", "If-Match", "If-Unmodified-Since", "If-Range", "Range",
    ]

    /// The cache's view of the attempt (the jar's cookies, added by the stage before, partition the entry).
    /// Reads the hooks (user code) outside every lock.
    private func makeAttempt(for request: URLRequest, owner: AnyConnectionRequest) -> CacheAttempt? {
        guard let url = request.url else { return nil }
        let policy = owner.cachePolicy
        let cacheRequest = HTTPCacheRequest(
            method: request.httpMethod ?? "GET", url: url, headerFields: request.allHTTPHeaderFields ?? [:],
            secretHeaderNames: owner.secretHeaderFields, secretQueryItemNames: owner.secretQueryItems)
        let inMemory = owner.fileDestination == nil && !owner.isStreaming
        let conditional = Self.ownConditions.contains { request.value(forHTTPHeaderField: $0) != nil }
        let answers =
            policy != .networkOnly && inMemory && !conditional
            && (cacheRequest.method == "GET" || cacheRequest.method == "HEAD")
        return CacheAttempt(policy: policy, request: cacheRequest, answers: answers, sentAt: Date())
    }

    /// `cached` as an answer to `request`, its age said in an `Age` field (RFC 9111 §5.1).
    private static func answer(_ cached: HTTPCachedResponse, source: ResponseSource, request: URLRequest)
        -> StageAnswer
    {
        var fields = cached.headerFields
        fields["age"] = String(Int(min(max(cached.age, 0), Double(Int32.max))))
        let response = TransportResponse(
            url: request.url, statusCode: cached.statusCode, httpVersion: "HTTP/1.1",
            head: ResponseHead(fields: fields), source: source)
        return StageAnswer(response: response, body: cached.body)
    }

    // MARK: - After a failure

    /// Whether the attempt may still be answered after a failure: looked up under a policy that answers, and
    /// not used for that yet. Whether something stored may answer is known only once
    /// ``answerAfterFailure(_:response:owner:run:)`` looks.
    var mayAnswerAfterFailure: Bool {
        state.withLock { $0.attempt?.mayFallBack ?? false }
    }

    /// When the network failed (a transport error, a timeout, or a `500`, `502`, `503`, `504`) and the run is
    /// about to end: answers from the stored response the policy allows (`stale-if-error`, or anything under
    /// ``HTTPCachePolicy/offlineFirst``) and returns `true`; `false` to fail as before.
    func answerAfterFailure(
        _ error: ConnectionError, response: ConnectionResponse?, owner: AnyConnectionRequest, run: RunNumber
    ) -> Bool {
        let serverFailed = response.map { $0.source == .network && [500, 502, 503, 504].contains($0.statusCode) }
        guard error.kind == .transport || error.kind == .timedOut || serverFailed == true else { return false }
        let attempt: CacheAttempt? = state.withLock { state in
            guard let attempt = state.attempt, attempt.mayFallBack else { return nil }
            state.attempt?.fellBack = true
            return attempt
        }
        guard let attempt, let request = owner.storage.withLock({ $0.sentRequest ?? $0.attemptRequest }),
            let cached = cache.fallback(for: attempt.request, policy: attempt.policy)
        else { return false }
        // Not between transfers (cancelled meanwhile): the caller's `finish` ends the run, or finds it ended.
        let answer = Self.answer(cached, source: cached.isStale ? .staleCache : .cache, request: request)
        return owner.answerWithoutNetwork(answer.response, body: answer.body, request: request, run: run)
    }

    // MARK: - After a response

    /// The attempt's last response, as the cache changes it. An unsafe request's response first removes the
    /// stored responses it made out of date. A `304 Not Modified` to the conditions the cache added becomes
    /// the stored response, its fields updated by the `304` (RFC 9111 §4.3.4), with its status (a `200`) and
    /// its body, so that validation does not see a `304`; a `304` that confirms no stored response sends the
    /// request again (``resendAfterLostEntry(_:owner:run:)``). Anything else is unchanged.
    func finalResponse(
        _ response: TransportResponse, sink: (any BodySink)?, owner: AnyConnectionRequest, run: RunNumber
    ) -> FinalResponse {
        let attempt = state.withLock { $0.attempt }
        if response.source == .network, let attempt {
            cache.invalidate(
                after: attempt.request, statusCode: response.statusCode, headerFields: response.head.fields)
        }
        guard response.statusCode == 304, let attempt, attempt.revalidating, !owner.wasRedirected else {
            return .response(response, sink: sink)
        }
        guard
            let updated = cache.revalidated(
                attempt.request, notModifiedHeaderFields: response.head.fields, requestTime: attempt.sentAt,
                responseTime: Date())
        else {
            if resendAfterLostEntry(response, owner: owner, run: run) {
                sink?.discard()
                return .takenOver
            }
            return .response(response, sink: sink)
        }
        sink?.discard()
        let swapped = TransportResponse(
            url: response.url, statusCode: updated.statusCode, httpVersion: response.httpVersion,
            head: ResponseHead(fields: updated.headerFields), source: .revalidated)
        let memory = MemorySink(limit: .max, expectedLength: Int64(updated.body.count))
        _ = try? memory.append(updated.body)
        owner.replaceResponse(response, with: swapped)
        return .response(swapped, sink: memory)
    }

    /// When a `304` to the conditions the cache added confirms no stored response (it is gone: evicted, or
    /// removed by another request, since the lookup; or the `304` names another strong `ETag`), there is
    /// nothing to answer with: the request is sent again at once, without conditions (RFC 9111 §4.3.4), once
    /// per run, and this returns `true`. The rest of the run's attempts carry no conditions either. A second
    /// such `304` in the run reaches validation as any `304` does.
    private func resendAfterLostEntry(_ response: TransportResponse, owner: AnyConnectionRequest, run: RunNumber)
        -> Bool
    {
        guard response.source == .network else { return false }
        let claimed = state.withLock { state in
            guard !state.resentAfterLostEntry else { return false }
            state.resentAfterLostEntry = true
            return true
        }
        guard claimed else { return false }
        owner.scheduleRetry(run: run, after: 0, error: ConnectionError(.unacceptableStatusCode(304, body: nil)))
        return true
    }

    /// Stores a network response the class accepted (validated and parsed), when its body is in memory and
    /// RFC 9111 allows it. A response that followed a redirect is not stored under the first URL.
    func accepted(_ response: TransportResponse, body: CompletedBody, owner: AnyConnectionRequest) {
        guard response.source == .network, case .memory(let data) = body,
            let attempt = state.withLock({ $0.attempt }), attempt.answers, !owner.wasRedirected
        else { return }
        cache.store(
            statusCode: response.statusCode, headerFields: response.head.fields, body: data, for: attempt.request,
            requestTime: attempt.sentAt, responseTime: Date())
    }
}
