import Foundation
import HTTPServerCore

/// A request as the ``TestServer`` received it: handlers get one, and the server records every one it parses.
///
/// It is `Codable`, so ``TestResponse/echo(_:)`` can send it back as JSON and a test can decode it with a plain
/// `JSONDecoder()` (default strategies: `body` as base64, `receivedAt` as seconds since the reference date).
public struct TestRequest: Sendable, Codable, Equatable {
    // MARK: - Properties

    /// The request method exactly as sent, for example `"GET"`.
    public var method: String

    /// The percent-encoded path as sent, without the query; an absolute-form target is reduced to its path.
    public var path: String

    /// The raw query string without the leading `"?"`; `nil` when the target had no `"?"`.
    public var query: String?

    /// The header lines in the order received, names with the case the client used.
    public var headers: [TestHeader]

    /// The whole request body; a `Transfer-Encoding: chunked` body is de-chunked. Empty when there was none.
    public var body: Data

    /// For a path the server was told to digest (``TestServer/digestBodies(of:)``): the body's length, checksum,
    /// first and last bytes; ``body`` is then empty. `nil` otherwise.
    public var bodyDigest: TestBodyDigest?

    /// When the server finished reading the request head.
    public var receivedAt: Date

    /// Which accepted connection carried the request: 1 for the first connection the server accepted, and so on.
    public var connectionID: Int

    // MARK: - Init

    /// Creates a request value; the server makes these, tests rarely need to.
    /// Defaults: no query, no headers, empty body, no digest, `receivedAt` now, `connectionID` 0.
    public init(
        method: String,
        path: String,
        query: String? = nil,
        headers: [TestHeader] = [],
        body: Data = Data(),
        bodyDigest: TestBodyDigest? = nil,
        receivedAt: Date = Date(),
        connectionID: Int = 0
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
        self.bodyDigest = bodyDigest
        self.receivedAt = receivedAt
        self.connectionID = connectionID
    }

    // MARK: - Derived values

    /// The query decoded into a dictionary: names and values are percent-decoded, `+` stays `+`,
    /// an item without `=` has the value `""`, and when a name repeats the last value wins. Empty when no query.
    public var queryItems: [String: String] {
        QueryItems.parse(query)
    }

    /// The value of the first header named `name`, compared case-insensitively; `nil` when absent.
    public func header(_ name: String) -> String? {
        headers.firstValue(named: name)
    }

    /// The body decoded as UTF-8; `nil` when it is not valid UTF-8.
    public var bodyString: String? {
        String(data: body, encoding: .utf8)
    }
}
