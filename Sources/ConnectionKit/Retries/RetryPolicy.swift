import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// When and how a failed attempt is tried again.
///
/// The default of every request is ``none``: one attempt, no retry. ``default`` retries idempotent
/// requests twice on retryable statuses and transport errors, with exponential backoff, jitter and
/// `Retry-After`. Every knob is a public property with its default stated:
///
/// ```swift
/// var policy = RetryPolicy.default
/// policy.maximumAttempts = 5
/// policy.deadline = 30
/// ```
/// - SeeAlso: <doc:retries-and-deadlines>
public struct RetryPolicy: Sendable, Hashable {
    /// Attempts in all, the first one included. Default 3 (two retries); ``none`` has 1.
    public var maximumAttempts: Int
    /// The wait before the first retry, in seconds. Default 0.5.
    public var initialBackoff: TimeInterval
    /// Each further retry waits this many times longer. Default 2.
    public var backoffMultiplier: Double
    /// No backoff wait exceeds this, in seconds, jitter included. Default 30.
    public var maximumBackoff: TimeInterval
    /// Each wait is randomised by up to this fraction either way (0.2 = ±20%), so that many clients
    /// do not retry in step. Default 0.2; 0 disables jitter.
    public var jitter: Double
    /// Methods that may be retried. Default: the idempotent ones, `GET`, `HEAD`, `OPTIONS`, `PUT`,
    /// `DELETE`, `TRACE`.
    public var retryableMethods: Set<HTTPMethod>
    /// Whether a request of another method (`POST`, `PATCH`) is retried when it carries an
    /// `Idempotency-Key` header, which makes repeating it safe. Default `true`.
    public var retriesRequestsWithIdempotencyKey: Bool
    /// Response statuses that are retried. Default 408, 429, 500, 502, 503, 504.
    public var retryableStatusCodes: Set<Int>
    /// Transport errors that are retried. Default: timed out, connection lost, cannot connect,
    /// cannot find host, DNS failure, not connected.
    public var retryableURLErrorCodes: Set<URLError.Code>
    /// Whether a request that got no byte for its `timeoutInterval` is retried. Default `true`.
    public var retriesTimeouts: Bool
    /// Whether a `Retry-After` header (seconds or an HTTP date) sets the wait. Default `true`.
    public var honoursRetryAfter: Bool
    /// The longest `Retry-After` honoured, in seconds; a longer one is cut to this. Default 60.
    public var maximumRetryAfter: TimeInterval
    /// An overall bound, in seconds from `start()`, on all attempts and waits together; when it
    /// passes the request fails with `.timedOut`. Default `nil` (no bound beyond the attempts).
    public var deadline: TimeInterval?

    /// Creates a policy; every argument defaults to the value documented on its property.
    public init(
        maximumAttempts: Int = 3,
        initialBackoff: TimeInterval = 0.5,
        backoffMultiplier: Double = 2,
        maximumBackoff: TimeInterval = 30,
        jitter: Double = 0.2,
        retryableMethods: Set<HTTPMethod> = [.get, .head, .options, .put, .delete, HTTPMethod("TRACE")],
        retriesRequestsWithIdempotencyKey: Bool = true,
        retryableStatusCodes: Set<Int> = [408, 429, 500, 502, 503, 504],
        retryableURLErrorCodes: Set<URLError.Code> = [
            .timedOut, .networkConnectionLost, .cannotConnectToHost, .cannotFindHost, .dnsLookupFailed,
            .notConnectedToInternet,
        ],
        retriesTimeouts: Bool = true,
        honoursRetryAfter: Bool = true,
        maximumRetryAfter: TimeInterval = 60,
        deadline: TimeInterval? = nil
    ) {
        self.maximumAttempts = maximumAttempts
        self.initialBackoff = initialBackoff
        self.backoffMultiplier = backoffMultiplier
        self.maximumBackoff = maximumBackoff
        self.jitter = jitter
        self.retryableMethods = retryableMethods
        self.retriesRequestsWithIdempotencyKey = retriesRequestsWithIdempotencyKey
        self.retryableStatusCodes = retryableStatusCodes
        self.retryableURLErrorCodes = retryableURLErrorCodes
        self.retriesTimeouts = retriesTimeouts
        self.honoursRetryAfter = honoursRetryAfter
        self.maximumRetryAfter = maximumRetryAfter
        self.deadline = deadline
    }

    /// One attempt, never retried. The default of every request.
    public static let none = RetryPolicy(maximumAttempts: 1)

    /// Up to two retries of idempotent requests (or ones with an `Idempotency-Key`) on 408, 429,
    /// 500, 502, 503, 504 and on transport errors, waiting 0.5 s then 1 s (±20%), honouring
    /// `Retry-After` up to 60 s.
    public static let `default` = RetryPolicy()

    /// Retries only timeouts (ours and the transport's), `times` times, waiting 0.5 s, 1 s, 2 s…:
    /// what ASIHTTPRequest's `numberOfTimesToRetryOnTimeout` gave. Other errors are not retried.
    public static func retryOnTimeout(times: Int) -> RetryPolicy {
        RetryPolicy(
            maximumAttempts: min(max(0, times), Int.max - 1) + 1, retryableStatusCodes: [],
            retryableURLErrorCodes: [.timedOut])
    }

    // MARK: - Decisions

    /// Whether `error` (from attempt number `attempt`, 1-based) may be retried under this policy,
    /// ignoring the wait. `request` is the request as it was sent.
    public func allowsRetry(of error: ConnectionError, attempt: Int, request: URLRequest?) -> Bool {
        guard attempt < maximumAttempts else { return false }
        let method = HTTPMethod(request?.httpMethod ?? "GET")
        let hasIdempotencyKey = request?.value(forHTTPHeaderField: "Idempotency-Key") != nil
        guard retryableMethods.contains(method) || (retriesRequestsWithIdempotencyKey && hasIdempotencyKey) else {
            return false
        }
        switch error.kind {
        case .timedOut: return retriesTimeouts
        case .transport: return error.urlError.map { retryableURLErrorCodes.contains($0.code) } ?? false
        case .unacceptableStatusCode: return error.statusCode.map { retryableStatusCodes.contains($0) } ?? false
        default: return false
        }
    }

    /// The wait before retry number `retry` (1 for the first retry), without `Retry-After`:
    /// `initialBackoff × backoffMultiplier^(retry-1)`, jittered by ±`jitter` of itself, and never more
    /// than `maximumBackoff` (the cap applies after the jitter, so it is a true upper bound).
    public func backoff(beforeRetry retry: Int) -> TimeInterval {
        let exponent = Double(max(0, retry - 1))
        let cap = Self.sanitizedWait(maximumBackoff)
        let base = min(cap, Self.sanitizedWait(initialBackoff * pow(backoffMultiplier, exponent)))
        guard jitter > 0, base > 0 else { return base }
        let spread = base * min(1, jitter)
        return min(cap, max(0, base + Double.random(in: -spread...spread)))
    }

    /// The longest wait ConnectionKit schedules, in seconds (7 days): longer, infinite or NaN waits
    /// from a policy or a ``AnyConnectionRequest/retryDecision(for:attempt:response:)`` override are
    /// clamped to 0...this rather than trapping.
    static let longestWait: TimeInterval = 7 * 24 * 3600

    /// `seconds` clamped to `0...longestWait`; NaN counts as 0.
    static func sanitizedWait(_ seconds: TimeInterval) -> TimeInterval {
        guard !seconds.isNaN else { return 0 }
        return min(max(0, seconds), longestWait)
    }

    /// The wait a `Retry-After` header asks for (delta-seconds or an HTTP date), capped at
    /// `maximumRetryAfter`; `nil` when absent, unparsable, or not honoured.
    public func retryAfterDelay(from response: ConnectionResponse?, now: Date = Date()) -> TimeInterval? {
        guard honoursRetryAfter, let value = response?.value(forHTTPHeaderField: "Retry-After") else { return nil }
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        let cap = Self.sanitizedWait(maximumRetryAfter)
        // delta-seconds is digits only (RFC 9110 §10.2.3); "1e9", "-1", "inf" and "nan" are not waits.
        if !trimmed.isEmpty, trimmed.allSatisfy({ $0.isASCII && $0.isNumber }) {
            return min(TimeInterval(trimmed) ?? cap, cap)
        }
        if let date = HTTPDate.parse(trimmed) {
            return min(max(0, date.timeIntervalSince(now)), cap)
        }
        return nil
    }
}
