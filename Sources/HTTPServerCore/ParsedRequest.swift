import Foundation

/// One header line as received: name (case as sent) and value (trimmed).
package struct HeaderLine: Sendable, Equatable {
    package var name: String
    package var value: String

    package init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}

/// A request as ``HTTPRequestReader`` parsed it; each server turns it into what its handlers see
/// (`TestRequest` for `TestServer`).
package struct ParsedRequest: Sendable {
    /// The method exactly as sent.
    package var method: String
    /// The percent-encoded path, without the query; an absolute-form target is reduced to its path.
    package var path: String
    /// The raw query without `?`; `nil` when the target had no `?`.
    package var query: String?
    /// The header lines in the order received.
    package var headers: [HeaderLine]
    /// The body, de-chunked; empty when there was none or it went to a body consumer.
    package var body: Data
    /// When the head had been read.
    package var receivedAt: Date
    /// Which accepted connection carried it (1, 2, …).
    package var connectionID: Int

    /// The value of the first header named `name`, compared case-insensitively.
    package func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    /// ``query`` decoded (see ``QueryItems/parse(_:)``).
    package var queryItems: [String: String] {
        QueryItems.parse(query)
    }
}

/// The one query decoder of the servers.
package enum QueryItems {
    /// Names and values percent-decoded, `+` kept as `+`, an item without `=` has the value `""`, the
    /// last of a repeated name wins. Empty for no query.
    package static func parse(_ query: String?) -> [String: String] {
        guard let query, !query.isEmpty else { return [:] }
        var items: [String: String] = [:]
        for pair in query.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let rawName = String(parts[0])
            let rawValue = parts.count > 1 ? String(parts[1]) : ""
            let name = rawName.removingPercentEncoding ?? rawName
            items[name] = rawValue.removingPercentEncoding ?? rawValue
        }
        return items
    }
}
