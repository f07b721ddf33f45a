import Foundation

/// An operation the ``OfflineQueue`` gave up on, kept with the reason so that an app or a tool can show
/// it, fix it, or ``OfflineQueue/remove(_:)`` it. It no longer blocks the operations behind it.
public struct DeadLetter: Sendable, Hashable, Identifiable, Codable {
    /// The operation, as it was when given up.
    public var operation: QueuedOperation
    /// The last error, described (e.g. "PostMicropost failed: the server answered 422 …").
    public var reason: String
    /// The status of the last response, when the server answered.
    public var statusCode: Int?
    /// When it was given up.
    public var date: Date

    /// The operation's identifier.
    public var id: UUID { operation.id }
}
