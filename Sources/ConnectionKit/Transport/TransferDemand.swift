/// A transfer receiver's answer to a piece of the body (``TransferReceiver/transferDidReceive(data:)``):
/// whether it wants the next piece now.
enum TransferDemand: Sendable, Equatable {
    /// Keep the body coming.
    case more
    /// Hold the rest of the body until the receiver calls ``TransferHandle/demandMore()``.
    case wait
}
