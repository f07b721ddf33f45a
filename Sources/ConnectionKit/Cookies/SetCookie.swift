import Foundation

/// One `Set-Cookie` header value as RFC 6265 §5.2 parses it: the browser algorithm, which takes what
/// servers send rather than refusing what a strict grammar would. Attribute names match in any case, the
/// last of each wins, and an attribute that cannot be read is ignored, not the cookie. A cookie is refused
/// only when it has no `=`, an empty name, a control character, or a name and value over 4096 bytes.
struct SetCookie: Equatable, Sendable {
    var name: String
    var value: String
    /// `Expires`, when it parsed as a cookie date.
    var expires: Date?
    /// `Max-Age` in seconds, when it was a number; it wins over `Expires`.
    var maxAge: Int64?
    /// `Domain`, lower-cased and without its leading dot; `nil` when absent or empty.
    var domain: String?
    /// `Path`, when it starts with `/`.
    var path: String?
    var isSecure = false
    var isHTTPOnly = false
    var sameSite = Cookie.SameSite.unspecified

    /// The most bytes of name and value together, as browsers count (RFC 6265 §6.1 asks for at least 4096).
    static let maximumSize = 4096
    /// The longest attribute value read (RFC 6265bis §5.6): a longer one is ignored.
    static let maximumAttributeValueSize = 1024

    /// Parses `header`; `nil` when the cookie is to be ignored.
    init?(_ header: String) {
        let parts = header.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false)
        let pair = parts[0]
        guard let equals = pair.firstIndex(of: "=") else { return nil }
        let name = Self.trimmed(pair[..<equals])
        let value = Self.trimmed(pair[pair.index(after: equals)...])
        guard !name.isEmpty, name.utf8.count + value.utf8.count <= Self.maximumSize,
            !Self.hasControlCharacter(name), !Self.hasControlCharacter(value)
        else { return nil }
        self.name = name
        self.value = value
        if parts.count > 1 {
            for attribute in parts[1].split(separator: ";", omittingEmptySubsequences: true) {
                apply(attribute)
            }
        }
    }

    /// Reads one `cookie-av`; an unknown attribute or a value that does not parse changes nothing.
    private mutating func apply(_ attribute: Substring) {
        let name: String
        let value: String
        if let equals = attribute.firstIndex(of: "=") {
            name = Self.trimmed(attribute[..<equals]).lowercased()
            value = Self.trimmed(attribute[attribute.index(after: equals)...])
        } else {
            name = Self.trimmed(attribute).lowercased()
            value = ""
        }
        guard value.utf8.count <= Self.maximumAttributeValueSize else { return }
        switch name {
        case "expires":
            if let date = CookieDate.parse(value) { expires = date }
        case "max-age":
            if let seconds = Self.maxAge(value) { maxAge = seconds }
        case "domain":
            // RFC 6265 §5.2.3: an empty `Domain` is ignored entirely, so an earlier one still counts; `Domain=.`
            // is not empty, and leaves the cookie host-only.
            guard !value.isEmpty else { return }
            var domain = Substring(value)
            if domain.first == "." { domain = domain.dropFirst() }
            self.domain = domain.isEmpty ? nil : domain.lowercased()
        case "path":
            path = value.first == "/" ? value : nil
        case "secure": isSecure = true
        case "httponly": isHTTPOnly = true
        case "samesite": sameSite = Cookie.SameSite(attribute: value)
        default: break
        }
    }

    /// `Max-Age`: an optional `-` then digits only; a number too large for 64 bits saturates.
    static func maxAge(_ value: String) -> Int64? {
        var digits = Substring(value)
        let negative = digits.first == "-"
        if negative { digits = digits.dropFirst() }
        guard !digits.isEmpty, digits.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        var result: Int64 = 0
        for byte in digits.utf8 {
            let (times, overflow) = result.multipliedReportingOverflow(by: 10)
            let (sum, overflowAgain) = times.addingReportingOverflow(Int64(byte - 0x30))
            if overflow || overflowAgain { return negative ? Int64.min : Int64.max }
            result = sum
        }
        return negative ? -result : result
    }

    /// `text` without leading and trailing spaces and tabs (RFC 6265 §5.2's WSP).
    static func trimmed(_ text: Substring) -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = text.firstIndex(where: { !isSpace($0) }),
            let last = text.lastIndex(where: { !isSpace($0) })
        else { return "" }
        return String(text[first...last])
    }

    /// Whether `text` holds a control character (RFC 6265bis §5.6: %x00-08, %x0A-1F, %x7F): such a
    /// cookie could not be sent back in a `Cookie` header.
    static func hasControlCharacter(_ text: String) -> Bool {
        text.utf8.contains { $0 < 0x20 && $0 != 0x09 || $0 == 0x7F }
    }
}
