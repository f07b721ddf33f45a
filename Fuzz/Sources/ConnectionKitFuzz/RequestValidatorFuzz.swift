import Foundation

@testable import ConnectionKit

/// The wire validator on an untrusted method and header fields. Fields are separated by the unit
/// separator (0x1F), not a newline, so that CR and LF reach the validator: field 0 is the method
/// (none when it is absent), each other field `name<TAB>value`. What must hold: whatever the
/// validator accepts is a token method, token names that are not framing headers and values without a
/// control character but tab (checked here by a second, byte-level reading of RFC 9110), and a refusal's
/// reason quotes no line break or NUL.
enum RequestValidatorFuzz {
    static func run(_ input: Data) {
        let fields = String(decoding: input, as: UTF8.self).split(separator: "\u{1F}", omittingEmptySubsequences: false)
            .map(String.init)
        let method = fields.first
        let headers = fields.dropFirst().prefix(32).map { field -> (name: String, value: String) in
            let pieces = field.split(separator: "\t", maxSplits: 1, omittingEmptySubsequences: false)
            return (String(pieces[0]), pieces.count > 1 ? String(pieces[1]) : "")
        }
        if let violation = WireValidation.violation(method: method, headerFields: headers, hook: "fuzz") {
            if violation.reason.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0 }) {
                fatalError("a refusal's reason quotes a line break or NUL")
            }
            return
        }
        if let method, !isToken(method) { fatalError("a method that is not a token was accepted") }
        for (name, value) in headers {
            guard isToken(name) else { fatalError("a header name that is not a token was accepted") }
            if value.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0 }) {
                fatalError("a header value with CR, LF or NUL was accepted")
            }
            if value.utf8.contains(where: { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }) {
                fatalError("a header value with a control character other than tab was accepted")
            }
            if framingHeaders.contains(name.lowercased()) { fatalError("a framing header was accepted") }
        }
    }

    /// The fields that frame a message or name its connection (RFC 9112 §6, RFC 9110 §7.2 and §7.6.1).
    private static let framingHeaders: Set<String> = [
        "content-length", "transfer-encoding", "host", "connection", "keep-alive", "proxy-connection", "te",
        "trailer", "upgrade",
    ]

    /// RFC 9110 §5.6.2: one or more of ALPHA, DIGIT and ``!#$%&'*+-.^_`|~``.
    private static func isToken(_ text: String) -> Bool {
        let symbols = Set("!#$%&'*+-.^_`|~".utf8)
        return !text.isEmpty
            && text.utf8.allSatisfy { byte in
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                    || symbols.contains(byte)
            }
    }
}
