import Foundation

/// What a request does after a failed attempt. Returned by
/// ``AnyConnectionRequest/retryDecision(for:attempt:response:)``.
public enum RetryDecision: Sendable, Hashable {
    /// End with the error.
    case doNotRetry
    /// Try again after this many seconds.
    case retry(after: TimeInterval)
}
