import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A cookie jar (RFC 6265) that a request class opts into with its `cookieJar` hook: it keeps what
/// servers set with `Set-Cookie` and adds the matching cookies to each request's `Cookie` header, on
/// both transports, including each hop of a redirect.
///
/// ConnectionKit's sessions keep no cookies of their own: without a jar a request sends exactly the
/// `Cookie` header it sets. Give the classes that share a login one jar (an app superclass overriding
/// `cookieJar` with a `static let`), and only they share its cookies.
///
/// The rules are the browsers' (RFC 6265 §5): a `Domain` naming a public suffix (`co.uk`, `github.io`) is
/// refused; without `Domain` a cookie goes back to its host only; `Secure` cookies are neither set from
/// nor sent over `http`; `Max-Age` wins over `Expires`; a past date or `Max-Age=0` deletes; the
/// `__Secure-` and `__Host-` prefixes are enforced. A cookie's name and value together may hold
/// 4096 bytes; past ``maximumCookiesPerDomain`` or ``maximumCookies`` the least recently used cookie is
/// evicted. A lookup reads only the cookies of the request's host and its parent domains, so it stays in
/// microseconds with thousands of cookies stored.
///
/// Memory only, unless made with ``init(fileURL:maximumCookiesPerDomain:maximumCookies:)`` (see
/// ``save()``). Thread-safe.
public final class CookieJar: Sendable {
    /// The most cookies kept for one domain (RFC 6265 §6.1 asks for at least 50).
    public let maximumCookiesPerDomain: Int
    /// The most cookies kept in all (RFC 6265 §6.1 asks for at least 3000).
    public let maximumCookies: Int
    /// The file the jar's persistent cookies are saved to, or `nil` for a jar in memory only.
    public let fileURL: URL?

    let state: Locked<State>

    /// A jar in memory only.
    public init(maximumCookiesPerDomain: Int = 50, maximumCookies: Int = 3000) {
        self.maximumCookiesPerDomain = max(1, maximumCookiesPerDomain)
        self.maximumCookies = max(1, maximumCookies)
        self.fileURL = nil
        self.state = Locked(State())
    }

    /// A jar whose persistent cookies are read from `fileURL` now and written there by ``save()``, with
    /// the credential file's rules: permissions 0600, replaced atomically, under a lock that other
    /// processes using the same file respect. Session cookies and expired cookies are never written.
    /// A missing file is an empty jar; a file that is not a cookie file throws.
    public init(fileURL: URL, maximumCookiesPerDomain: Int = 50, maximumCookies: Int = 3000) throws {
        self.maximumCookiesPerDomain = max(1, maximumCookiesPerDomain)
        self.maximumCookies = max(1, maximumCookies)
        self.fileURL = fileURL
        self.state = Locked(State())
        try load()
    }

    // MARK: - Storing

    /// Stores the cookie of one `Set-Cookie` header value received from `url`, by RFC 6265 §5.3; a cookie
    /// the rules refuse is ignored. Returns whether the jar changed.
    @discardableResult
    public func store(setCookie header: String, from url: URL) -> Bool {
        store(setCookie: header, from: url, now: Date())
    }

    @discardableResult
    func store(setCookie header: String, from url: URL, now: Date) -> Bool {
        guard let parsed = SetCookie(header),
            let cookie = CookieRules.cookie(from: parsed, url: url, now: now, suffixes: .shared)
        else { return false }
        let limits = (perDomain: maximumCookiesPerDomain, total: maximumCookies)
        return state.withLock {
            $0.insert(cookie, fromSecureOrigin: CookieRules.isSecure(url), now: now, limits: limits)
        }
    }

    /// Stores the cookie of each `Set-Cookie` field value of one response, in the order received, each created
    /// ``creationStep`` after the one before: RFC 6265 §5.4 sends cookies of equal path in their order of
    /// creation, and a shared time would leave cookies of one response that land under different domains (a
    /// `Domain` cookie beside a host-only one) in the order the jar finds their domains instead.
    func store(setCookieFields values: [String], from url: URL, now: Date = Date()) {
        for (index, value) in values.enumerated() {
            store(setCookie: value, from: url, now: now.addingTimeInterval(Double(index) * Self.creationStep))
        }
    }

    /// How much later each `Set-Cookie` field of one response is created than the one before it: a
    /// microsecond, which a `Date` of this century still tells apart.
    static let creationStep: TimeInterval = 1e-6

    /// Adds `cookie` as it is (no `Set-Cookie` domain or prefix rules applied), replacing one with the same
    /// name, domain and path. For apps that restore cookies from elsewhere. Returns `false`, storing nothing,
    /// for a cookie that could not be sent (an empty name, `;`, `=` in the name, a control character, over
    /// 4096 bytes) or that has expired.
    @discardableResult
    public func add(_ cookie: Cookie) -> Bool {
        guard cookie.canBeSent else { return false }
        let limits = (perDomain: maximumCookiesPerDomain, total: maximumCookies)
        return state.withLock { $0.insert(cookie, fromSecureOrigin: true, now: Date(), limits: limits) }
    }

    // MARK: - Reading

    /// The cookies to send to `url`, in the order of RFC 6265 §5.4: longer paths first, then older ones.
    /// Marks them used (for eviction).
    public func cookies(for url: URL) -> [Cookie] {
        cookies(for: url, now: Date())
    }

    func cookies(for url: URL, now: Date) -> [Cookie] {
        guard let host = CookieRules.canonicalHost(url) else { return [] }
        let path = CookieRules.requestPath(url)
        let secure = CookieRules.isSecure(url)
        return state.withLock { $0.matching(host: host, path: path, secure: secure, now: now) }
    }

    /// The value of the `Cookie` header for `url` (`a=1; b=2`), or `nil` when no cookie matches.
    public func cookieHeader(for url: URL) -> String? {
        Self.header(for: cookies(for: url))
    }

    static func header(for cookies: [Cookie]) -> String? {
        cookies.isEmpty ? nil : cookies.map { "\($0.name)=\($0.value)" }.joined(separator: "; ")
    }

    /// Every cookie the jar holds that has not expired, by domain, path and name.
    public var allCookies: [Cookie] {
        let now = Date()
        return state.withLock { $0.all.filter { !$0.isExpired(at: now) } }
            .sorted { ($0.domain, $0.path, $0.name) < ($1.domain, $1.path, $1.name) }
    }

    // MARK: - Removing

    /// Removes the cookie with `cookie`'s name, domain and path.
    public func remove(_ cookie: Cookie) {
        state.withLock { _ = $0.remove(cookie.key) }
    }

    /// Removes every cookie (a log-out).
    public func removeAll() {
        state.withLock { $0 = State() }
    }

    /// Removes the cookies that have expired (lookups skip them anyway).
    public func removeExpired() {
        let now = Date()
        state.withLock { $0.purgeExpired(now: now) }
    }
}
