/// Where a request is in its lifecycle.
///
/// A request starts `.idle`, becomes `.running` on `start()`, and ends in exactly one of
/// `.finished`, `.failed` or `.cancelled`. An ended request may be started again.
public enum ConnectionState: String, Sendable, Hashable, Codable, CustomStringConvertible {
    /// Created or reset, never started.
    case idle
    /// Started and not yet ended: sending, waiting, receiving, or waiting to retry.
    case running
    /// Ended with a result delivered to the completion path.
    case finished
    /// Ended with an error delivered to the failure path.
    case failed
    /// Ended by `cancel()` (or the registry); the failure path got `ConnectionError.cancelled`.
    case cancelled

    /// Whether the request has ended (`.finished`, `.failed` or `.cancelled`).
    public var isEnded: Bool {
        switch self {
        case .idle, .running: return false
        case .finished, .failed, .cancelled: return true
        }
    }

    /// The state's name, e.g. `running`.
    public var description: String { rawValue }
}
