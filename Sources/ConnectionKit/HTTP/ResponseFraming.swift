import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Checks a response head for framing HTTP/1.1 forbids, whatever the transport accepted.
///
/// Two `Content-Length` values that differ (RFC 9112 §6.3) make the message's length ambiguous: a proxy
/// and the client may cut the stream in different places, which is how responses are smuggled. libcurl
/// picks one and carries on; ConnectionKit refuses the response. Repeats of one value are accepted, as the
/// RFC allows.
enum ResponseFraming {
    /// Why a response whose `Content-Length` field reads `declared` cannot be trusted, or `nil`.
    static func problem(contentLength declared: String?) -> String? {
        // URLSession joins repeated fields with ", "; other transports may too.
        guard let declared else { return nil }
        // The common case, one number of at most 18 digits (below Int64.max), is read without allocating:
        // this runs for every response, on a transport's thread.
        let utf8 = declared.utf8
        if (1...18).contains(utf8.count), utf8.allSatisfy(isDigit) { return nil }
        // Cut byte by byte: `trimmingCharacters(in:)` goes through NSString on Linux, on every response.
        let values = declared.utf8.split(separator: UInt8(ascii: ",")).map {
            $0.drop(while: isBlank).reversed().drop(while: isBlank)
        }
        guard let first = values.first, values.allSatisfy({ !$0.isEmpty && $0.allSatisfy(isDigit) }) else {
            return "the response's Content-Length is not a number (RFC 9112 §6.3)"
        }
        guard values.allSatisfy({ $0.elementsEqual(first) }) else {
            return "the response has conflicting Content-Length values (RFC 9112 §6.3)"
        }
        // A length past Int64 wraps or saturates in a transport, which may then end the body early
        // and report it complete.
        guard fitsInt64(Array(first.reversed())) else {
            return "the response's Content-Length is larger than any body can be (over \(Int64.max) bytes)"
        }
        return nil
    }

    /// Whether the ASCII digits `digits` (most significant first) read as at most `Int64.max`.
    private static func fitsInt64(_ digits: [UInt8]) -> Bool {
        let significant = digits.drop { $0 == UInt8(ascii: "0") }
        let maximum = Array(String(Int64.max).utf8)
        guard significant.count == maximum.count else { return significant.count < maximum.count }
        return !significant.lexicographicallyPrecedes(maximum) ? significant.elementsEqual(maximum) : true
    }

    private static func isBlank(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }

    private static func isDigit(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) }
}
