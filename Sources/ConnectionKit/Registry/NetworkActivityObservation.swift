import Foundation

/// Keeps a ``NetworkActivity`` observer registered; cancel it (or let it go) to stop.
///
/// ConnectionKit's one cancellation token: the registry's event streams hold one too, released with the
/// stream, so that a listener that simply stops iterating is still removed.
public final class NetworkActivityObservation: Sendable {
    private let onCancel: Locked<(@Sendable () -> Void)?>

    /// A token that runs `onCancel` once: at ``cancel()`` or when the last reference goes away.
    init(onCancel: @escaping @Sendable () -> Void) {
        self.onCancel = Locked(onCancel)
    }

    /// Stops the observation. Idempotent.
    public func cancel() {
        let action = onCancel.withLock { action in
            defer { action = nil }
            return action
        }
        action?()
    }

    deinit { cancel() }
}
