import Foundation

/// One failed delivery attempt of an ``OfflineQueue``, for tooling ("offline, next try in 10 s").
public struct FailedAttempt: Sendable {
    /// The operation, with ``QueuedOperation/attempts`` counting this attempt.
    public var operation: QueuedOperation
    /// Why it failed.
    public var error: ConnectionError
    /// Whether the attempt reached the server (it answered) or not (unreachable).
    public var reachedServer: Bool
    /// When the attempt ended.
    public var endedAt: Date
    /// The wait before the next attempt, in seconds; `nil` when the operation was dead-lettered instead.
    public var retryDelay: TimeInterval?
}
