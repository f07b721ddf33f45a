import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Gives URLSession's lossy Linux errors the codes they have on Apple platforms, so that retry
/// policies and messages see what really happened.
///
/// On Linux, libcurl failures without a matching `URLError` code arrive as code -1 ("unknown") with
/// only libcurl's text in the description, and a non-HTTP answer arrives as -1002 "unsupported URL".
/// libcurl's messages are stable strings, so they are matched here, in one place.
enum TransportErrorMapping {
    /// libcurl's own limit on one header line (`CURL_MAX_HTTP_HEADER`): a longer line fails the transfer
    /// as "Out of memory" before any response is delivered.
    static let libcurlHeaderLineLimit: Int64 = 100 * 1024

    /// `error` with a meaningful code (or a `ConnectionError` for an over-large header block);
    /// anything not recognised is returned unchanged. `responseArrived` says whether a response head was
    /// delivered before the failure.
    static func normalized(_ error: any Error, responseArrived: Bool) -> any Error {
        guard let urlError = error as? URLError else { return error }
        let text = urlError.localizedDescription
        switch urlError.code {
        case .unknown:
            if text.contains("transfer closed with") || text.contains("bytes remaining") {
                return rewrite(
                    urlError, as: .networkConnectionLost, "the connection closed before the whole body arrived")
            }
            if text.contains("Too large response headers") {
                return ConnectionError(.responseTooLarge(limit: declaredLimit(in: text) ?? 300 * 1024))
            }
            if text.contains("Out of memory"), !responseArrived {
                // libcurl reports a header line longer than it accepts this way (a real shortage of
                // memory with no response yet reads the same, and is just as fatal to the attempt).
                return ConnectionError(.responseTooLarge(limit: libcurlHeaderLineLimit))
            }
            if text.contains("Failed writing header"), !responseArrived {
                // FoundationNetworking's head parser refuses a line and aborts libcurl's header callback: the
                // text is the same for both lines it refuses, so the message names both.
                return rewrite(
                    urlError, as: .badServerResponse,
                    "FoundationNetworking could not read the response's head (it refuses a status line without a "
                        + "reason phrase, such as HTTP/1.1 200, and a header field whose value is only blanks); "
                        + "the libcurl transport reads both")
            }
            if text.contains("Nul byte in header") {
                // libcurl refuses a NUL in the head (RFC 9110 §5.5); the libcurl transport says the same.
                return rewrite(urlError, as: .badServerResponse, "the server's answer is not valid HTTP")
            }
            if text.contains("content unencoding") || text.contains("content encoding") {
                return rewrite(urlError, as: .cannotDecodeContentData, "the compressed body could not be decoded")
            }
            if text.contains("SSL certificate") || text.contains("certificate verify") {
                return rewrite(urlError, as: .serverCertificateUntrusted, "the server's certificate is not trusted")
            }
            if text.contains("SSL") || text.contains("TLS") {
                return rewrite(urlError, as: .secureConnectionFailed, "the secure connection failed")
            }
            return error
        case .badServerResponse where text.contains("Empty reply"):
            return rewrite(urlError, as: .networkConnectionLost, "the server closed the connection without answering")
        case .unsupportedURL:
            // Only http and https requests reach the transport: -1002 here means the answer was not HTTP.
            return rewrite(urlError, as: .badServerResponse, "the server's answer is not HTTP")
        default:
            return error
        }
    }

    /// A `URLError` with `code`, a message that says what happened (libcurl's text in parentheses),
    /// the original kept as the underlying error and its failing URL kept.
    private static func rewrite(_ error: URLError, as code: URLError.Code, _ message: String) -> URLError {
        var info = error.userInfo
        info[NSLocalizedDescriptionKey] = "\(message) (\(error.localizedDescription))"
        info[NSUnderlyingErrorKey] = error as NSError
        return URLError(code, userInfo: info)
    }

    /// The limit in libcurl's "Too large response headers: 307776 > 307200".
    private static func declaredLimit(in text: String) -> Int64? {
        guard let marker = text.range(of: "> ") else { return nil }
        let digits = text[marker.upperBound...].prefix { $0.isASCII && $0.isNumber }
        return Int64(digits)
    }
}
