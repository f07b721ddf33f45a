import Foundation

/// What the class's ``HTTPCache`` knows of the attempt in flight: kept by the run's ``CacheStage`` from the
/// lookup before it is sent until its response is stored, revalidated or answered from the cache.
struct CacheAttempt: Sendable {
    /// The class's policy.
    let policy: HTTPCachePolicy
    /// The attempt as the cache sees it (the cookie jar's cookies included: they partition the entry).
    let request: HTTPCacheRequest
    /// Whether the cache may answer and store: a `GET` or `HEAD` kept in memory, under a policy that is
    /// not ``HTTPCachePolicy/networkOnly``, that carries no condition or range of its own.
    let answers: Bool
    /// When the request was sent, for the stored response's age.
    let sentAt: Date
    /// Whether the cache added `If-None-Match` / `If-Modified-Since`: a `304` is then its answer.
    var revalidating = false
    /// Whether a stored response already answered a failure of this attempt (it is not asked twice).
    var fellBack = false

    /// Whether a stored response may still answer a failure of this attempt.
    var mayFallBack: Bool { answers && !fellBack }
}
