import Foundation

extension AnyConnectionRequest {
    /// Starts the request through `queue`: the same as `queue.start(self, onOffline: onOffline)`. If the
    /// network is unreachable the request is queued and `onOffline` runs with the queued operation instead of
    /// the failure handler (see ``OfflineQueue/start(_:onOffline:)``).
    public func start(via queue: OfflineQueue, onOffline: @escaping @Sendable (QueuedOperation) -> Void) {
        queue.start(self, onOffline: onOffline)
    }
}
