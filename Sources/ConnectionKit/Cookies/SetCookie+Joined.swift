extension SetCookie {
    /// The `Set-Cookie` values of a field that a transport joined with ", " (both transports hand over
    /// repeated fields that way, as `HTTPURLResponse` does). A comma starts a new cookie only when
    /// what follows reads `name=` before any `;`, space or comma: the comma of an `Expires` date
    /// (`Wed, 21 Oct 2015 …`) never does. A cookie value holding `, x=` is split there; RFC 6265 forbids
    /// commas in values, and browsers that read joined fields split them the same way.
    static func split(joined field: String) -> [String] {
        var cookies: [String] = []
        var current = Substring(field)
        var searchStart = current.startIndex
        while let comma = current[searchStart...].firstIndex(of: ",") {
            let after = current[current.index(after: comma)...]
            if startsWithPair(after) {
                cookies.append(String(current[..<comma]))
                current = after
                searchStart = current.startIndex
            } else {
                searchStart = current.index(after: comma)
            }
        }
        cookies.append(String(current))
        return cookies.map { trimmed($0[...]) }.filter { !$0.isEmpty }
    }

    /// Whether `text` (after optional spaces) starts with a token followed by `=`.
    private static func startsWithPair(_ text: Substring) -> Bool {
        let rest = text.drop { $0 == " " || $0 == "\t" }
        guard let end = rest.firstIndex(where: { $0 == "=" || $0 == ";" || $0 == "," || $0 == " " || $0 == "\t" })
        else { return false }
        return rest[end] == "=" && end > rest.startIndex
    }
}
