/// How a run ended: the one description of an ending inside ConnectionKit. The public views of it
/// (``ConnectionState``, ``ConnectionEvent/Kind``) are derived from it.
enum RunOutcome: Sendable {
    case success(any Sendable)
    case failure(ConnectionError)
    case cancelled

    /// The ending as ``AnyConnectionRequest/state`` shows it.
    var phase: ConnectionState {
        switch self {
        case .success: return .finished
        case .failure: return .failed
        case .cancelled: return .cancelled
        }
    }
}
