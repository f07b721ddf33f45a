import Foundation

/// One cookie as a ``CookieJar`` keeps it (RFC 6265 §5.3): what a server's `Set-Cookie` said, resolved
/// against the URL it came from.
public struct Cookie: Sendable, Hashable, Codable {
    /// The cookie's name (case-sensitive).
    public var name: String
    /// The cookie's value, exactly as the server sent it. Secret: never shown in ConnectionKit's output.
    public var value: String
    /// The domain the cookie belongs to, lower-cased, without a leading dot.
    public var domain: String
    /// `true` when the server gave no `Domain` attribute: the cookie goes back to exactly ``domain``, not to
    /// its subdomains.
    public var isHostOnly: Bool
    /// The path the cookie applies to (the `Path` attribute, or the default path of the URL that set it).
    public var path: String
    /// When the cookie expires; `nil` for a session cookie, which lives until the jar is discarded and is
    /// never written to a file.
    public var expires: Date?
    /// The `Secure` attribute: the cookie is only sent over `https`.
    public var isSecure: Bool
    /// The `HttpOnly` attribute. Kept for fidelity; a client has no script to hide the cookie from.
    public var isHTTPOnly: Bool
    /// The `SameSite` attribute, stored as received (a client sends no cross-site requests of its own).
    public var sameSite: SameSite
    /// When the cookie was first stored; a replacement keeps the replaced cookie's time (RFC 6265 §5.3).
    public var created: Date
    /// When the cookie was last set or sent: the least recently used cookie is evicted first.
    public var lastAccessed: Date

    /// A cookie with every attribute given. The jar makes its own from `Set-Cookie`; this is for tests
    /// and for apps that restore cookies from elsewhere.
    public init(
        name: String, value: String, domain: String, isHostOnly: Bool = true, path: String = "/",
        expires: Date? = nil, isSecure: Bool = false, isHTTPOnly: Bool = false, sameSite: SameSite = .unspecified,
        created: Date = Date(), lastAccessed: Date? = nil
    ) {
        self.name = name
        self.value = value
        self.domain = domain.lowercased()
        self.isHostOnly = isHostOnly
        self.path = path
        self.expires = expires
        self.isSecure = isSecure
        self.isHTTPOnly = isHTTPOnly
        self.sameSite = sameSite
        self.created = created
        self.lastAccessed = lastAccessed ?? created
    }

    /// Whether the cookie has no expiry date: it is kept in memory only.
    public var isSession: Bool { expires == nil }

    /// Whether the cookie has expired at `now`.
    public func isExpired(at now: Date = Date()) -> Bool {
        expires.map { $0 <= now } ?? false
    }

    /// Whether the cookie can go back in a `Cookie` header: a name, no `=` or `;` in it, no `;` in the
    /// value, no control character in either. A jar refuses a cookie (from a file or ``CookieJar/add(_:)``)
    /// that cannot.
    var canBeSent: Bool {
        !name.isEmpty && !name.contains("=") && !name.contains(";") && !value.contains(";")
            && !SetCookie.hasControlCharacter(name) && !SetCookie.hasControlCharacter(value)
            && name.utf8.count + value.utf8.count <= SetCookie.maximumSize
    }

    /// What identifies a cookie in a jar: a new cookie with the same name, domain and path replaces it.
    struct Key: Hashable {
        let name: String
        let domain: String
        let path: String
    }

    var key: Key { Key(name: name, domain: domain, path: path) }
}
