import Foundation

extension URLSessionTransport {
    /// Why URLSession cannot make a transfer as `options` ask, or `nil` when it can: a proxy chosen per
    /// class (URLSession takes its proxy from its configuration, for every task of the session) and TLS
    /// settings beyond the default (pins, own CAs, a client certificate, a higher minimum version,
    /// no verification) are refused before anything is sent, with the transport that does them named.
    static func refusal(of options: TransferOptions) -> ConnectionError? {
        if let proxy = options.proxy {
            return ConnectionError(
                .invalidRequest(
                    reason: "proxy \(ConnectionTransport.redactedProxy(proxy)) is set, but the URLSession transport "
                        + "cannot send through a proxy chosen per class; choose the libcurl transport for this class "
                        + "(ConnectionTransport.libcurl(), on Linux)."))
        }
        if options.streamedBody != nil {
            return ConnectionError(.invalidRequest(reason: streamedBodyRefusal))
        }
        if let asks = options.tls?.beyondDefault {
            return ConnectionError(.tls(TLSFailure(.unsupported, message: tlsRefusal(asks))))
        }
        return nil
    }

    /// The sentence for a request whose body is streamed (``StreamedBody``). On Linux, FoundationNetworking ends a
    /// streamed body at the first moment its `InputStream` has no bytes ready (a truncated body, sent without an
    /// error), and a stream that waits for them instead blocks URLSession's one process-wide queue (docs/linux.md).
    static var streamedBodyRefusal: String {
        #if os(Linux)
            return "its body is streamed (RequestBody.stream), which URLSession on Linux cannot send without "
                + "truncating it or blocking every URLSession transfer of the process, and nothing was sent; choose "
                + "the libcurl transport for this class (override transport to return try .libcurl())."
        #else
            return "its body is streamed (RequestBody.stream), which ConnectionKit does not send over URLSession on "
                + "this platform yet, and nothing was sent; see docs/streaming.md."
        #endif
    }

    /// The sentence for a class whose TLS configuration URLSession cannot honour.
    static func tlsRefusal(_ asks: String) -> String {
        #if os(Linux)
            return "the class's tls \(asks), which URLSession on Linux cannot do, and nothing was sent; choose the "
                + "libcurl transport for this class (override transport to return try .libcurl())."
        #else
            return "the class's tls \(asks), which ConnectionKit does not do over URLSession on this platform yet, "
                + "and nothing was sent; see docs/tls.md."
        #endif
    }
}
