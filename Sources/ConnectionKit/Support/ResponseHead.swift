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
    /// The header block's size as parsed: name, value and 4 bytes (`: ` and CRLF) per field.
    private(set) var size = 0
    /// The `Content-Length` field as received.
    private(set) var contentLength: String?
    /// The `Content-Encoding` field.
    private(set) var contentEncoding: String?
    /// Whether there is a `Location` field.
    private(set) var hasLocation = false

    /// The head of fields a transport joined itself.
    init(fields: [String: String]) {
        self.fields = fields
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
