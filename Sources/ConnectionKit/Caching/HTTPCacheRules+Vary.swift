import Foundation

/// Selecting a stored response by its `Vary` fields (RFC 9111 §4.1).
extension HTTPCacheRules {
    /// The lowercased field names `Vary` lists, or `nil` for `Vary: *` (which no request ever matches).
    static func varyNames(_ headers: [String: String]) -> [String]? {
        guard let vary = headers["vary"] else { return [] }
        let names = vary.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        if names.contains("*") { return nil }
        return Array(Set(names.filter { !$0.isEmpty })).sorted()
    }

    /// The request's values of the selecting fields, normalised (list members trimmed, one space after each
    /// comma); a secret field's value is kept only as its digest.
    static func varyValues(names: [String], request: HTTPCacheRequest) -> [HTTPCacheEntry.VaryValue] {
        names.map { name in
            let value = request.headerFields[name].map { raw in
                let normal = raw.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
                    .joined(separator: ", ")
                return request.secretHeaderNames.contains(name) ? digest(normal) : normal
            }
            return HTTPCacheEntry.VaryValue(name: name, value: value)
        }
    }

    /// Whether `request` has the same selecting field values as the request `entry` was stored for.
    static func varyMatches(_ entry: HTTPCacheEntry, request: HTTPCacheRequest) -> Bool {
        guard let names = varyNames(entry.headers) else { return false }
        return varyValues(names: names, request: request) == entry.vary
    }
}
