import Foundation

/// How a request class makes its TLS connections: which certificates it trusts, which server keys
/// it pins, the client certificate it presents, and the oldest TLS version it accepts.
///
/// Set it once per class, usually in an app superclass, by overriding ``AnyConnectionRequest/tls``:
///
/// ```swift
/// override var tls: TLSConfiguration {
///     TLSConfiguration(trust: .systemPlus([.file(internalCA)]), pinnedPublicKeys: [currentPin, nextPin])
/// }
/// ```
///
/// The default, ``default``, trusts the system's CA store, pins nothing, presents no certificate and
/// accepts TLS 1.2 and later. Anything beyond the default needs the libcurl transport on Linux
/// (``ConnectionTransport/libcurl()``); over URLSession such a class fails before sending with
/// ``TLSFailure/Reason/unsupported``. See `docs/tls.md`.
public struct TLSConfiguration: Sendable {
    /// A PEM document (one or more certificates, or a private key): a file, or its bytes.
    public enum PEM: Sendable, Equatable {
        /// A PEM file, read when a connection is made.
        case file(URL)
        /// PEM bytes in memory (needs libcurl 7.77 for a CA bundle, 7.71 for a client certificate or key).
        case bytes(Data)
    }

    /// Which certificate authorities a server's certificate may chain to.
    public enum Trust: Sendable, Equatable {
        /// The system's CA store, found where the loaded libcurl looks for it (Debian, Ubuntu and
        /// Alpine: `/etc/ssl/certs/ca-certificates.crt`; Fedora and RHEL: `/etc/pki/tls/certs/ca-bundle.crt`).
        case system
        /// The system's CA store and these CAs as well (an internal CA next to public ones).
        case systemPlus([PEM])
        /// Only these CAs: the system store is not consulted.
        case only([PEM])
    }

    /// The oldest TLS version a connection may use.
    public enum Version: Int, Sendable, Comparable, CustomStringConvertible {
        /// TLS 1.2 (RFC 5246).
        case tls12 = 12
        /// TLS 1.3 (RFC 8446).
        case tls13 = 13

        /// Orders versions from old to new.
        public static func < (lhs: Version, rhs: Version) -> Bool { lhs.rawValue < rhs.rawValue }

        /// `TLS 1.2` or `TLS 1.3`.
        public var description: String { self == .tls12 ? "TLS 1.2" : "TLS 1.3" }
    }

    /// A client certificate for mutual TLS: the certificate (PEM), its private key (PEM), and where
    /// the key's passphrase is kept when the key is encrypted.
    public struct ClientCertificate: Sendable {
        /// The certificate, optionally followed by its intermediates.
        public var certificate: PEM
        /// The private key matching ``certificate``.
        public var key: PEM
        /// The store holding the key's passphrase, or `nil` for a key without one.
        public var passphraseStore: (any CredentialStore)?
        /// The account under which ``passphraseStore`` keeps the passphrase.
        public var passphraseAccount: String

        /// A client certificate. The passphrase, when the key has one, is read from `passphraseStore`
        /// for `passphraseAccount` as each connection is set up; it is never logged or put in an error.
        public init(
            certificate: PEM, key: PEM, passphraseStore: (any CredentialStore)? = nil, passphraseAccount: String = ""
        ) {
            self.certificate = certificate
            self.key = key
            self.passphraseStore = passphraseStore
            self.passphraseAccount = passphraseAccount
        }
    }

    /// Which CAs the server's certificate may chain to. Default ``Trust/system``.
    public var trust: Trust
    /// SHA-256 digests of the server's SubjectPublicKeyInfo, base64 (44 characters each). When not
    /// empty, a connection succeeds only if the server's key matches one of them, on every connection
    /// and every redirect hop; list the old and the new key while a key is being rotated.
    public var pinnedPublicKeys: [String]
    /// The certificate presented when the server asks for one (mutual TLS), or `nil`.
    public var clientCertificate: ClientCertificate?
    /// The oldest TLS version accepted. Default ``Version/tls12``.
    public var minimumVersion: Version
    /// Whether a redirect from `https` to `http` is followed. Default `false`: such a redirect fails
    /// with ``TLSFailure/Reason/insecureRedirect``, on every transport.
    public var allowsRedirectsToHTTP: Bool
    /// Whether the server's certificate and host name are verified: `false` only in
    /// ``insecureForTestsOnly``.
    public private(set) var verifiesServer: Bool

    /// A configuration; every argument has the default's value unless given.
    public init(
        trust: Trust = .system, pinnedPublicKeys: [String] = [], clientCertificate: ClientCertificate? = nil,
        minimumVersion: Version = .tls12, allowsRedirectsToHTTP: Bool = false
    ) {
        self.trust = trust
        self.pinnedPublicKeys = pinnedPublicKeys
        self.clientCertificate = clientCertificate
        self.minimumVersion = minimumVersion
        self.allowsRedirectsToHTTP = allowsRedirectsToHTTP
        self.verifiesServer = true
    }

    /// The system's CA store, no pins, no client certificate, TLS 1.2 or later.
    public static let `default` = TLSConfiguration()

    /// **For tests only: no verification at all.** Any certificate is accepted for any host name, so
    /// anyone on the network path can read and change the traffic. Only per class (there is no
    /// process-wide switch), only on the libcurl transport; debug output flags every request sent
    /// with it, and the first one of each class writes a warning to standard error. Never ship it.
    public static var insecureForTestsOnly: TLSConfiguration {
        var configuration = TLSConfiguration()
        configuration.verifiesServer = false
        return configuration
    }

    /// What this configuration asks beyond the default, as a phrase ("pins public keys"), or `nil`
    /// when it asks nothing that URLSession could not do.
    var beyondDefault: String? {
        var asks: [String] = []
        if !verifiesServer { asks.append("turns certificate verification off (insecureForTestsOnly)") }
        if trust != .system { asks.append("trusts its own CA certificates") }
        if !pinnedPublicKeys.isEmpty { asks.append("pins public keys") }
        if clientCertificate != nil { asks.append("presents a client certificate") }
        if minimumVersion > .tls12 { asks.append("requires \(minimumVersion) or later") }
        return asks.isEmpty ? nil : asks.joined(separator: ", ")
    }
}
