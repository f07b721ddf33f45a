import Foundation

/// Runs its cleanup once: when cancelled, or when the last reference (held by an event stream's
/// producer) goes away, so that a listener that simply stops iterating is still removed.
final class EventSubscription: Sendable {
    private let cleanup: Locked<(@Sendable () -> Void)?>

    init(cleanup: @escaping @Sendable () -> Void) {
        self.cleanup = Locked(cleanup)
    }

    /// Runs the cleanup, the first time only.
    func cancel() {
        let action = cleanup.withLock { action in
            defer { action = nil }
            return action
        }
        action?()
    }

    deinit { cancel() }
}
