import Foundation

/// A response answered from an ``HTTPCache``.
public struct HTTPCachedResponse: Sendable, Equatable {
    /// The stored status code.
    public let statusCode: Int
    /// The stored header fields (lowercased names), as updated by the last revalidation. Never `Set-Cookie`.
    public let headerFields: [String: String]
    /// The stored body (empty for a `HEAD` answered from a stored `GET`).
    public let body: Data
    /// The response's current age in seconds (RFC 9111 §4.2.3).
    public let age: TimeInterval
    /// Whether the response is stale: served under `stale-while-revalidate`, `stale-if-error` or offline
    /// first. An app that shows it can say the data may be out of date.
    public let isStale: Bool
}
