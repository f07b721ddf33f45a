import Foundation

/// Applies a request class's ``TLSConfiguration`` where its transfers start: the libcurl transport
/// gets the settings, a transport that cannot honour them refuses before anything is sent, and a
/// redirect from `https` to `http` is refused unless allowed.
enum TLSRouting {
    /// The transport for one transfer of `request` to `url` (an attempt or a redirect hop). A plain
    /// `http` transfer has no TLS to configure: it goes as it would without the configuration.
    static func transport(_ base: any Transport, for request: AnyConnectionRequest, url: URL?) throws(ConnectionError)
        -> any Transport
    {
        guard url?.scheme?.lowercased() == "https" else { return base }
        let tls = request.tls
        if !tls.verifiesServer { warnOnce(about: request.typeName) }
        #if canImport(CCurlShim)
            if var routed = CurlRoutedTransport.routing(base) {
                routed.route.tls = try CurlTLSSettings(tls)
                return routed
            }
        #endif
        if let asks = tls.beyondDefault {
            throw ConnectionError(.tls(TLSFailure(.unsupported, message: urlSessionRefusal(asks))))
        }
        return base
    }

    /// The sentence for a class whose configuration URLSession cannot honour.
    static func urlSessionRefusal(_ asks: String) -> String {
        #if os(Linux)
            return "the class's tls \(asks), which URLSession on Linux cannot do, and nothing was sent; choose the "
                + "libcurl transport for this class (override transport to return try .libcurl())."
        #else
            return "the class's tls \(asks), which ConnectionKit does not do over URLSession on this platform yet, "
                + "and nothing was sent; see docs/tls.md."
        #endif
    }

    /// The error for a redirect from `previous` to `next` that would leave TLS, or `nil` when it may be followed.
    static func redirectRefusal(from previous: URL?, to next: URL?, tls: TLSConfiguration) -> ConnectionError? {
        guard !tls.allowsRedirectsToHTTP, previous?.scheme?.lowercased() == "https",
            next?.scheme?.lowercased() == "http"
        else { return nil }
        return ConnectionError(
            .tls(
                TLSFailure(
                    .insecureRedirect,
                    message:
                        "the server redirected from https to http, and a secure request does not continue in "
                        + "plain text; fix the server's Location, or set tls.allowsRedirectsToHTTP for this class.")))
    }

    private static let warned = Locked(Set<String>())

    /// The first request of a class with ``TLSConfiguration/insecureForTestsOnly`` writes a warning to
    /// standard error, so that it cannot go unnoticed outside a debug run.
    private static func warnOnce(about typeName: String) {
        let first = warned.withLock { $0.insert(typeName).inserted }
        guard first else { return }
        let line =
            "ConnectionKit: WARNING: \(typeName) sends with TLSConfiguration.insecureForTestsOnly: no certificate "
            + "or host name is verified. For tests only.\n"
        FileHandle.standardError.write(Data(line.utf8))
    }
}
