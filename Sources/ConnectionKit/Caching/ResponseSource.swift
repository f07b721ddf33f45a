import Foundation

/// Where the response a request's hooks and handlers saw came from: the network, the class's
/// ``AnyConnectionRequest/httpCache``, or a middleware that answered (``ConnectionMiddleware``).
///
/// Read it on ``ConnectionResponse/source`` (in ``AnyConnectionRequest/validate(_:data:)`` and the parse
/// hooks), on ``AnyConnectionRequest/responseSource`` once the request ended, and in the history
/// (``ConnectionHistoryRecord/responseSource``). An app that shows data answered with ``staleCache`` can
/// say it may be out of date.
public enum ResponseSource: String, Sendable, Hashable, Codable, CaseIterable {
    /// The server's response, sent over the network (a cache miss, or a class without a cache).
    case network
    /// A fresh stored response (a cache hit): nothing was sent.
    case cache
    /// A stored response the server confirmed with `304 Not Modified`: its status (usually `200`) and
    /// stored body, with the header fields the `304` updated.
    case revalidated
    /// A stale stored response: answered under `stale-while-revalidate` (the cache refreshes it behind),
    /// `stale-if-error`, or ``HTTPCachePolicy/offlineFirst`` because the network failed.
    case staleCache
    /// A middleware of the client's pipeline answered (a mock, a replay): nothing was sent, and neither the
    /// cookie jar nor the HTTP cache saw it.
    case middleware

    /// Whether the answer came from the HTTP cache (``cache``, ``revalidated`` or ``staleCache``).
    public var isFromCache: Bool { self == .cache || self == .revalidated || self == .staleCache }
}
