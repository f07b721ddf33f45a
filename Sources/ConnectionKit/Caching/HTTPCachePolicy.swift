import Foundation

/// How a request class uses an ``HTTPCache``: chosen per class (``AnyConnectionRequest/cachePolicy``), never
/// global.
public enum HTTPCachePolicy: Sendable, Equatable {
    /// Every request goes to the network and nothing is stored: ConnectionKit's behaviour before caching
    /// existed, and the default of a class without a cache. Its unsafe requests still invalidate.
    case networkOnly
    /// RFC 9111 as a private cache applies it: a fresh stored response answers without the network, a stale
    /// one is revalidated, and `stale-while-revalidate` / `stale-if-error` are honoured. The default of a class
    /// with a cache.
    case useCache
    /// As ``useCache``, and when the network fails the stored response answers however stale it is (the
    /// answer says it is stale), so that an app shows its last known data offline.
    case offlineFirst
}
