import Foundation

/// Revalidating a stale response (RFC 9111 §4.3).
extension HTTPCacheRules {
    /// Header fields a 304 never changes in a stored response (§3.2): the stored body's own length and
    /// coding, and what is never stored.
    static let fieldsKeptOn304: Set<String> = ["content-length", "content-encoding", "content-range"]

    /// The validators to send: `If-None-Match` from `ETag`, `If-Modified-Since` from `Last-Modified`.
    static func conditionalHeaders(for entry: HTTPCacheEntry) -> [String: String] {
        var fields: [String: String] = [:]
        if let tag = entry.headers["etag"] { fields["If-None-Match"] = tag }
        if let modified = entry.headers["last-modified"] { fields["If-Modified-Since"] = modified }
        return fields
    }

    /// `entry` updated by a `304 Not Modified` (§4.3.4): the 304's fields replace the stored ones (except
    /// ``fieldsKeptOn304``, ``unstoredFields`` and those its `Connection` field names), and its times restart the age. `nil` when the 304 names a
    /// different strong `ETag` than the stored one: it does not describe this response.
    static func updated(
        _ entry: HTTPCacheEntry, notModifiedHeaders: [String: String], requestTime: Date, responseTime: Date
    ) -> HTTPCacheEntry? {
        let fields = normalized(notModifiedHeaders)
        if let newTag = fields["etag"], let storedTag = entry.headers["etag"], !newTag.hasPrefix("W/"),
            !storedTag.hasPrefix("W/"), newTag != storedTag
        {
            return nil
        }
        var result = entry
        let connectionFields = connectionNamedFields(fields)
        for (name, value) in fields
        where !fieldsKeptOn304.contains(name) && !unstoredFields.contains(name) && !connectionFields.contains(name) {
            result.headers[name] = value
        }
        result.requestTime = requestTime
        result.responseTime = responseTime
        return result
    }
}
