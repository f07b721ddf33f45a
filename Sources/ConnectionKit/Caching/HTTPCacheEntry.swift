import Foundation

/// One stored response: what the stores keep and what ``HTTPCacheRules`` reasons about.
struct HTTPCacheEntry: Equatable, Sendable {
    /// One selecting header field of the request that was stored (RFC 9111 §4.1): `value` is `nil` when the
    /// request did not have it, and a hex SHA-256 digest for a secret field, never the field itself.
    struct VaryValue: Codable, Equatable, Sendable {
        var name: String
        var value: String?
    }

    /// The request URL without its fragment and secret query items (``HTTPCacheRules/storedURL(_:)``).
    var url: String
    /// Always `GET`: the only method whose responses are stored.
    var method: String
    var status: Int
    /// Lowercased names; never `Set-Cookie` or a hop-by-hop field.
    var headers: [String: String]
    /// When the request that fetched (or last revalidated) the response was sent, and when its answer came.
    var requestTime: Date
    var responseTime: Date
    var vary: [VaryValue]
    /// Hex SHA-256 of the request's credentials, or empty when it had none (``HTTPCacheRules/partition(of:)``).
    var partition: String
    var body: Data

    /// The bytes this entry costs a store's size bound: its body and its header fields.
    var cost: Int {
        body.count + url.utf8.count + headers.reduce(0) { $0 + $1.key.utf8.count + $1.value.utf8.count } + 128
    }
}
