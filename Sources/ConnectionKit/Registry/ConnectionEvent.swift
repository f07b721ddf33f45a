import Foundation

/// Something that happened to a live request, as ``ConnectionRegistry/events`` reports it.
public struct ConnectionEvent: Sendable, CustomStringConvertible {
    /// What happened.
    public enum Kind: Sendable {
        /// The request started: its ``ConnectionSnapshot`` has the class's method, and no URL yet (attempt 0).
        case started
        /// A transfer (the first attempt, a retry or a redirect hop) is about to be sent: the snapshot has
        /// its redacted URL, method and attempt number, before any byte moved (a request whose server holds
        /// its response shows its URL from here on).
        case sending
        /// Bytes moved (rate-limited like ``AnyConnectionRequest/progressHandler``).
        case progressed(TransferProgress)
        /// An attempt failed with `error`; attempt number `attempt` starts after `delay` seconds.
        case retried(attempt: Int, delay: TimeInterval, error: ConnectionError)
        /// The request ended with a result; `statusCode` is the final response's status.
        case finished(statusCode: Int?)
        /// The request ended with `error`.
        case failed(ConnectionError)
        /// The request was cancelled.
        case cancelled

        /// Whether the event ends the request (finished, failed or cancelled).
        public var isEnd: Bool {
            switch self {
            case .finished, .failed, .cancelled: return true
            case .started, .sending, .progressed, .retried: return false
            }
        }

        /// The case's name, e.g. `progressed`.
        public var name: String {
            switch self {
            case .started: return "started"
            case .sending: return "sending"
            case .progressed: return "progressed"
            case .retried: return "retried"
            case .finished: return "finished"
            case .failed: return "failed"
            case .cancelled: return "cancelled"
            }
        }
    }

    /// What happened.
    public var kind: Kind
    /// The request at that moment, secrets redacted.
    public var snapshot: ConnectionSnapshot
    /// When it happened.
    public var date: Date

    /// For example `FetchEvents 1F2E… finished`.
    public var description: String {
        "\(snapshot.typeName) \(snapshot.identifier) \(kind.name)"
    }
}
