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
    /// Why `response` cannot be trusted, or `nil`.
    static func problem(in response: HTTPURLResponse) -> String? {
        // URLSession joins repeated fields with ", "; other transports may too.
        guard let declared = response.value(forHTTPHeaderField: "Content-Length") else { return nil }
        let values = declared.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        guard let first = values.first, values.allSatisfy({ !$0.isEmpty && $0.utf8.allSatisfy(isDigit) }) else {
            return "the response's Content-Length is not a number (RFC 9112 §6.3)"
        }
        guard values.allSatisfy({ $0 == first }) else {
            return "the response has conflicting Content-Length values (RFC 9112 §6.3)"
        }
        return nil
    }

    private static func isDigit(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) }
}
