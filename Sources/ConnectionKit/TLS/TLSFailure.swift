import Foundation

/// Why a secure connection failed: the reason, a sentence saying what to do about it, and the TLS
/// library's own words. Carried by ``ConnectionError/Kind/tls(_:)``.
///
/// A TLS failure is never retried by ``RetryPolicy`` (the same certificate fails the same way), and
/// its text never contains a secret: no key passphrase, no key material, URLs redacted.
public struct TLSFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong.
    public enum Reason: String, Sendable, Equatable, CaseIterable {
        /// The server's certificate does not chain to a trusted CA (the system store, or the class's own).
        case untrustedCertificate
        /// The server's certificate has expired, or is not valid yet.
        case expiredCertificate
        /// The server's certificate is not issued for the host name in the URL.
        case hostnameMismatch
        /// The server's public key matches none of ``TLSConfiguration/pinnedPublicKeys``.
        case pinMismatch
        /// The server refused the client certificate, or asked for one and got none.
        case clientCertificateRejected
        /// The class's client certificate or key could not be used: a missing or unreadable file, a
        /// key that does not fit the certificate, a wrong or missing passphrase.
        case clientCertificateUnusable
        /// The class's CA certificates could not be read.
        case trustStoreUnusable
        /// The handshake failed otherwise: no common TLS version or cipher, or a TLS alert.
        case handshakeFailed
        /// The transport cannot do what the class's ``TLSConfiguration`` asks (URLSession and pinning,
        /// say, or a libcurl too old for an option); nothing was sent.
        case unsupported
        /// A redirect from `https` to `http`, refused unless ``TLSConfiguration/allowsRedirectsToHTTP``.
        case insecureRedirect
    }

    /// What went wrong.
    public var reason: Reason
    /// A sentence saying what happened and what to do about it.
    public var message: String
    /// The TLS library's own text (libcurl's error message), when there is one.
    public var detail: String?

    /// A failure with `reason`, an actionable `message`, and the TLS library's `detail`.
    public init(_ reason: Reason, message: String, detail: String? = nil) {
        self.reason = reason
        self.message = message
        self.detail = detail
    }

    /// The message, then the detail in parentheses.
    public var description: String {
        guard let detail, !detail.isEmpty else { return message }
        return "\(message) (\(detail))"
    }
}
