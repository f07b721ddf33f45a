import Foundation

/// What the cache answers for a request before it goes to the network.
public enum HTTPCacheLookup: Sendable, Equatable {
    /// Nothing usable is stored: send the request as it is.
    case miss
    /// A fresh response: answer with it, without the network.
    case fresh(HTTPCachedResponse)
    /// A stale response within its `stale-while-revalidate` window: answer with it now, and send the request
    /// with `conditionalHeaders` added in the background to refresh the stored one.
    case staleWhileRevalidate(HTTPCachedResponse, conditionalHeaders: [String: String])
    /// A stored response that must be revalidated first: send the request with `conditionalHeaders` added
    /// (`If-None-Match`, `If-Modified-Since`); a `304` is answered with ``HTTPCache/revalidated(_:notModifiedHeaderFields:requestTime:responseTime:)``.
    case revalidate(HTTPCachedResponse, conditionalHeaders: [String: String])
}
