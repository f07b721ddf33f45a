import Foundation

/// Joins a base URL, a path and query items the way an API client expects: one slash between base
/// and path, characters a path may not hold percent-encoded (existing `%XX` escapes kept), and the
/// query items appended after any query the base already had, strictly encoded.
enum URLComposer {
    /// Characters left as they are in a query name or value: RFC 3986's unreserved set.
    static let queryAllowed = CharacterSet(
        charactersIn:
            "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
    private static let pathAllowed = CharacterSet.urlPathAllowed.subtracting(CharacterSet(charactersIn: ";?#"))

    static func compose(baseURL: URL, path: String, queryItems: [URLQueryItem]) -> URL? {
        var base = baseURL.absoluteString
        var fragment: String?
        if let hash = base.firstIndex(of: "#") {
            fragment = String(base[base.index(after: hash)...])
            base = String(base[..<hash])
        }
        var baseQuery: String?
        if let question = base.firstIndex(of: "?") {
            baseQuery = String(base[base.index(after: question)...])
            base = String(base[..<question])
        }
        var result = base
        let encodedPath = encodePath(path)
        if !encodedPath.isEmpty {
            while result.hasSuffix("/") { result.removeLast() }
            result += "/" + encodedPath.drop(while: { $0 == "/" })
        }
        var queryParts: [String] = []
        if let baseQuery, !baseQuery.isEmpty { queryParts.append(baseQuery) }
        if !queryItems.isEmpty { queryParts.append(encodedForm(queryItems)) }
        if !queryParts.isEmpty { result += "?" + queryParts.joined(separator: "&") }
        if let fragment { result += "#" + fragment }
        return URL(string: result)
    }

    /// `name=value&…` with names and values percent-encoded (RFC 3986 unreserved characters kept): a query,
    /// and the body of ``RequestBody/form(_:)``.
    static func encodedForm(_ items: [URLQueryItem]) -> String {
        items.map { item in
            let name = item.name.addingPercentEncoding(withAllowedCharacters: queryAllowed) ?? item.name
            guard let value = item.value else { return name }
            return name + "=" + (value.addingPercentEncoding(withAllowedCharacters: queryAllowed) ?? value)
        }.joined(separator: "&")
    }

    /// Percent-encodes what a path may not contain; a `%` that starts a valid escape is kept.
    static func encodePath(_ path: String) -> String {
        var output = ""
        let scalars = Array(path.unicodeScalars)
        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            if scalar == "%", index + 2 < scalars.count, scalars[index + 1].properties.isASCIIHexDigit,
                scalars[index + 2].properties.isASCIIHexDigit
            {
                output.unicodeScalars.append(contentsOf: scalars[index...index + 2])
                index += 3
                continue
            }
            if pathAllowed.contains(scalar) {
                output.unicodeScalars.append(scalar)
            } else {
                for byte in String(scalar).utf8 {
                    output += String(format: "%%%02X", byte)
                }
            }
            index += 1
        }
        return output
    }
}
