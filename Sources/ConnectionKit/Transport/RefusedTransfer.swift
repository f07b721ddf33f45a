import Foundation

/// A transfer that a shut-down transport refuses: it completes with `ConnectionError.Kind.clientShutDown`,
/// on another thread (never inside `start(receiver:)`, as the threading contract says), unless it is
/// cancelled first.
final class RefusedTransfer: TransferHandle {
    private let cancelled = Locked(false)

    /// Refuses a transfer for `receiver`.
    static func start(_ receiver: any TransferReceiver) -> RefusedTransfer {
        let transfer = RefusedTransfer()
        DispatchQueue.global().async {
            guard !transfer.cancelled.withLock({ $0 }) else { return }
            receiver.transferDidComplete(response: nil, error: ConnectionError(.clientShutDown))
        }
        return transfer
    }

    func cancel() {
        cancelled.withLock { $0 = true }
    }

    /// Nothing is received, so there is no demand to follow.
    var followsDemand: Bool { false }

    func demandMore() {}
}
