import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A response's header fields as the transport read them, with what the request side checks when the
/// response arrives: gathered in one pass, handed over inside a ``TransportResponse``.
///
/// On Linux, `HTTPURLResponse.value(forHTTPHeaderField:)` compares the wanted name with every field's name
/// through `NSString` and `allHeaderFields` converts the whole dictionary on every call: reading the fields
/// that way at each response (the checks, then the history) cost about 8 % of a small GET's CPU on the
/// libcurl transport, which has the fields at hand anyway.
struct ResponseHead: Sendable {
    /// The header fields, one entry per name (repeats joined with ", ").
    let fields: [String: String]
    /// The field lines in the order received, repeats apart when ``linesApart``; otherwise one line per
    /// entry of ``fields``, sorted by name.
    let lines: [ResponseHeaderField]
    /// Whether ``lines`` holds each field line as received (a transport that parsed the head itself), rather
    /// than the fields a transport or a cache entry already joined.
    let linesApart: Bool
    /// The header block's size as parsed: name, value and 4 bytes (`: ` and CRLF) per field.
    private(set) var size = 0
    /// The `Content-Length` field as received.
    private(set) var contentLength: String?
    /// The `Content-Encoding` field.
    private(set) var contentEncoding: String?
    /// Whether there is a `Location` field.
    private(set) var hasLocation = false

    /// The head of fields a transport (or a cache entry) joined already: the lines are those fields.
    init(fields: [String: String]) {
        let lines = fields.map { ResponseHeaderField(name: $0.key, value: $0.value) }.sorted { $0.name < $1.name }
        self.init(fields: fields, lines: lines, linesApart: false)
    }

    /// The head of the field lines as received, in order, repeats apart.
    init(lines: [ResponseHeaderField]) {
        self.init(fields: Self.joined(lines), lines: lines, linesApart: true)
    }

    private init(fields: [String: String], lines: [ResponseHeaderField], linesApart: Bool) {
        self.fields = fields
        self.lines = lines
        self.linesApart = linesApart
        for (name, value) in fields {
            size += name.utf8.count + value.utf8.count + 4
            if Self.name(name, is: "content-length") {
                contentLength = value
            } else if Self.name(name, is: "content-encoding") {
                contentEncoding = value
            } else if Self.name(name, is: "location") {
                hasLocation = true
            }
        }
    }

    /// The head of `response`'s fields (read once).
    init(_ response: HTTPURLResponse) {
        var fields: [String: String] = [:]
        for (key, value) in response.allHeaderFields {
            fields[key.base as? String ?? "\(key)"] = value as? String ?? "\(value)"
        }
        self.init(fields: fields)
    }

    /// The declared body length (as `HTTPURLResponse.expectedContentLength` reads it), unless the body is
    /// decoded on the way (its Content-Length is then the compressed size) or undeclared.
    var expectedBodyLength: Int64? {
        guard let contentLength, let length = Int64(contentLength), length >= 0 else { return nil }
        if let contentEncoding, !Self.name(contentEncoding, is: "identity") { return nil }
        return length
    }

    /// The value of the field `name`, compared without regard to ASCII case (field names are
    /// case-insensitive, RFC 9110 §5.1); `nil` when there is none.
    func value(forName name: String) -> String? {
        if let exact = fields[name] { return exact }
        for (field, value) in fields where Self.sameName(field, name) { return value }
        return nil
    }

    /// The value of each field line named `name` (in any case), in order. Where the lines were joined before
    /// ConnectionKit saw them, a `Set-Cookie` value is split again as a browser splits it
    /// (``SetCookie/split(joined:)``), any other field is the one joined value.
    func values(forName name: String) -> [String] {
        if linesApart {
            return lines.compactMap { Self.sameName($0.name, name) ? $0.value : nil }
        }
        guard let joined = value(forName: name) else { return [] }
        return Self.name(name, is: "set-cookie") ? SetCookie.split(joined: joined) : [joined]
    }

    /// One entry per field name, compared without regard to case, spelt as its first line has it, the
    /// values of repeated lines joined with ", " (RFC 9110 §5.3; wrong for `Set-Cookie`, which
    /// ``values(forName:)`` reads apart).
    private static func joined(_ lines: [ResponseHeaderField]) -> [String: String] {
        // Most heads repeat no name: then one dictionary is all there is to build.
        if lines.count <= 64, !hasRepeatedName(lines) {
            var fields = [String: String](minimumCapacity: lines.count)
            for line in lines { fields[line.name] = line.value }
            return fields
        }
        // Repeated names are joined once at the end: joining as they come copies the value so far
        // for every line, which tens of thousands of lines with one name make quadratic.
        var values = [String: [String]](minimumCapacity: lines.count)
        var spelling = [String: String](minimumCapacity: lines.count)
        for line in lines {
            let lower = line.name.lowercased()
            let key = spelling[lower, default: line.name]
            spelling[lower] = key
            values[key, default: []].append(line.value)
        }
        return values.mapValues { $0.count == 1 ? $0[0] : $0.joined(separator: ", ") }
    }

    /// Whether two of `lines` have the same name without regard to case (pairwise: for a head of a few
    /// lines, cheaper than the dictionaries of the general case).
    private static func hasRepeatedName(_ lines: [ResponseHeaderField]) -> Bool {
        for later in lines.indices.dropFirst() {
            for earlier in 0..<later where sameName(lines[earlier].name, lines[later].name) {
                return true
            }
        }
        return false
    }

    /// Whether the two names are equal without regard to ASCII case.
    static func sameName(_ lhs: String, _ rhs: String) -> Bool {
        guard lhs.utf8.count == rhs.utf8.count else { return false }
        for (left, right) in zip(lhs.utf8, rhs.utf8) where left != right {
            let foldedLeft = (0x41...0x5A).contains(left) ? left | 0x20 : left
            let foldedRight = (0x41...0x5A).contains(right) ? right | 0x20 : right
            if foldedLeft != foldedRight { return false }
        }
        return true
    }

    /// Whether `name` is `lowercase` (ASCII, lower case) in any case.
    static func name(_ name: String, is lowercase: StaticString) -> Bool {
        lowercase.withUTF8Buffer { expected in
            guard name.utf8.count == expected.count else { return false }
            for (byte, wanted) in zip(name.utf8, expected) {
                let folded = (0x41...0x5A).contains(byte) ? byte | 0x20 : byte
                if folded != wanted { return false }
            }
            return true
        }
    }
}
