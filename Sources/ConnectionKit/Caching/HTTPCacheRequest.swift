import Foundation

/// What the cache needs to know of a request: its method, URL, header fields, and which of them are secret.
///
/// Header field names are compared without case; two fields with the same name are joined with `, `.
public struct HTTPCacheRequest: Sendable, Equatable {
    /// The request method, uppercase (`GET`, `POST`, ...).
    public var method: String
    /// The request URL.
    public var url: URL
    /// The header fields, keyed by lowercased name.
    public private(set) var headerFields: [String: String]
    /// Header fields (lowercased names) that carry credentials: a stored response is served only to a request
    /// with the same values, and the values are stored only as a digest. `Authorization` and `Cookie` always
    /// count as secret.
    public var secretHeaderNames: Set<String>
    /// Query items whose values are secret: left out of the stored URL and covered by the digest instead.
    public var secretQueryItemNames: Set<String>

    /// A request as the cache sees it.
    public init(
        method: String = "GET", url: URL, headerFields: [String: String] = [:],
        secretHeaderNames: Set<String> = [], secretQueryItemNames: Set<String> = []
    ) {
        self.method = method.uppercased()
        self.url = url
        self.headerFields = HTTPCacheRules.normalized(headerFields)
        self.secretHeaderNames = Set(secretHeaderNames.map { $0.lowercased() }).union(["authorization", "cookie"])
        self.secretQueryItemNames = secretQueryItemNames
    }
}
