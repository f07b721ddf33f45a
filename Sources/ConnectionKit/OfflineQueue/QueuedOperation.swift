import Foundation

/// One write kept by an ``OfflineQueue`` until the server has it: what is sent, under which
/// `Idempotency-Key`, and how often it was tried.
///
/// Secrets are not part of it: `Authorization`, `Proxy-Authorization`, `Cookie`, `Set-Cookie` and the
/// class's ``AnyConnectionRequest/secretHeaderFields`` are removed from ``headerFields``, a password and
/// the class's ``AnyConnectionRequest/secretQueryItems`` from ``url``; they are applied again at send time
/// from the request class (see ``OfflineQueue/register(_:factory:)``).
public struct QueuedOperation: Sendable, Hashable, Identifiable, Codable {
    /// Identifies the operation in the queue (and its files).
    public var id: UUID
    /// Position in the queue: operations are delivered in increasing order.
    public var sequence: UInt64
    /// The name of the request class that made it, e.g. `PostMicropost`; the key its registration is found by.
    public var typeName: String
    /// The HTTP method, e.g. `POST`.
    public var method: String
    /// The URL, without a password or secret query items.
    public var url: URL
    /// The header fields, without secret ones and without `Idempotency-Key` (sent from ``idempotencyKey``).
    public var headerFields: [String: String]
    /// The names of secret headers the request had, re-applied from the class at send time.
    public var removedSecretHeaderNames: [String]
    /// The names of secret query items the URL had, re-applied from the class at send time.
    public var removedSecretQueryItemNames: [String]
    /// The `Idempotency-Key` sent on every attempt: the request's own when it had one, otherwise minted at
    /// enqueue. A server that remembers keys can drop the repeats at-least-once delivery may cause.
    public var idempotencyKey: String
    /// When ``OfflineQueue/enqueue(_:)`` accepted it.
    public var enqueuedAt: Date
    /// Attempts made so far (recorded before each attempt is sent, so a process killed mid-attempt still
    /// counts it; a power cut may lose the count of attempts made since the last sync).
    public var attempts: Int
    /// The body's size in bytes; 0 when there is none.
    public var bodyLength: Int
    /// The body, when small enough to be kept in the operation's own journal record.
    var inlineBody: Data? = nil
    /// The body file's name in the queue's `bodies` folder, for large bodies.
    var bodyFileName: String? = nil
}
