import Foundation

/// Applies a request class's ``TLSConfiguration`` where its transfers start: the configuration goes
/// to the transport with each `https` transfer (``TransferOptions/tls``), where the transport honours it
/// or refuses before anything is sent, and a redirect from `https` to `http` is refused unless allowed.
enum TLSRouting {
    /// The TLS configuration of one transfer of `request` to `url` (an attempt or a redirect hop), each
    /// hop's own: a plain `http` transfer has no TLS to configure (`nil`), so it goes as it would
    /// without the configuration.
    static func configuration(of request: AnyConnectionRequest, for url: URL?) -> TLSConfiguration? {
        guard url?.scheme?.lowercased() == "https" else { return nil }
        let tls = request.tls
        if !tls.verifiesServer { warnOnce(about: request.typeName) }
        return tls
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
