import Foundation

/// The rules of RFC 6265 that turn a parsed `Set-Cookie` into a stored cookie (§5.3) and decide which
/// cookies a URL gets (§5.1.3 domain matching, §5.1.4 paths).
enum CookieRules {
    /// `https` and `wss`: the schemes a `Secure` cookie may be set from and sent over.
    static func isSecure(_ url: URL) -> Bool {
        let scheme = url.scheme?.lowercased()
        return scheme == "https" || scheme == "wss"
    }

    /// The URL's host, lower-cased, without brackets or a trailing dot; `nil` when it has none.
    static func canonicalHost(_ url: URL) -> String? {
        guard var host = url.host?.lowercased(), !host.isEmpty else { return nil }
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if host.hasSuffix(".") { host.removeLast() }
        return host.isEmpty ? nil : host
    }

    /// Whether `host` is an IPv4 or IPv6 address: such a host matches only itself.
    static func isIPAddress(_ host: String) -> Bool {
        if host.contains(":") { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4
            && parts.allSatisfy {
                !$0.isEmpty && $0.count <= 3 && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber)
            }
    }

    /// §5.1.3: `host` is `domain`, or ends with `.domain` and is not an IP address.
    static func domainMatches(host: String, domain: String) -> Bool {
        if host == domain { return true }
        return host.hasSuffix(domain) && host.utf8.count > domain.utf8.count
            && host.utf8.dropLast(domain.utf8.count).last == UInt8(ascii: ".") && !isIPAddress(host)
    }

    /// §5.1.4's request path: the URL's path as sent, percent-encoding and a trailing `/` kept (`URL.path`
    /// decodes and drops the `/`, which moves `/a/b/` up to `/a/b`); `/` when the URL has none.
    static func requestPath(_ url: URL) -> String {
        let path = url.absoluteURL.path(percentEncoded: true)
        return path.isEmpty ? "/" : path
    }

    /// §5.1.4: the URL's path up to its last `/` (`/a/b` for `/a/b/c` and for `/a/b/`), `/` at the top.
    static func defaultPath(_ url: URL) -> String {
        let path = requestPath(url)
        guard path.hasPrefix("/"), let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return "/" }
        return String(path[..<slash])
    }

    /// §5.1.4: `requestPath` is `cookiePath`, or below it.
    static func pathMatches(requestPath: String, cookiePath: String) -> Bool {
        guard requestPath.hasPrefix(cookiePath) else { return false }
        if requestPath.utf8.count == cookiePath.utf8.count || cookiePath.hasSuffix("/") { return true }
        return requestPath.utf8.dropFirst(cookiePath.utf8.count).first == UInt8(ascii: "/")
    }

    /// The longest a cookie lives (RFC 6265bis §5.6.1 and §5.6.2: 400 days), whatever the server asks.
    static let maximumLifetime: TimeInterval = 400 * 86_400

    /// The cookie `parsed` makes when received from `url` at `now` (§5.3), or `nil` when it is refused:
    /// a `Domain` the host is not in or that is a public suffix, `Secure` from an insecure URL, a broken
    /// `__Secure-` or `__Host-` prefix. An expired cookie is returned: storing it deletes its namesake.
    static func cookie(from parsed: SetCookie, url: URL, now: Date, suffixes: PublicSuffixList) -> Cookie? {
        guard let host = canonicalHost(url) else { return nil }
        let secureOrigin = isSecure(url)
        var domain = parsed.domain
        if let attribute = domain, suffixes.isPublicSuffix(attribute) {
            guard attribute == host else { return nil }
            domain = nil
        }
        if let attribute = domain, !domainMatches(host: host, domain: attribute) { return nil }
        if parsed.isSecure && !secureOrigin { return nil }
        guard prefixAllowed(parsed, secureOrigin: secureOrigin) else { return nil }
        return Cookie(
            name: parsed.name, value: parsed.value, domain: domain ?? host, isHostOnly: domain == nil,
            path: parsed.path ?? defaultPath(url), expires: expiry(of: parsed, now: now), isSecure: parsed.isSecure,
            isHTTPOnly: parsed.isHTTPOnly, sameSite: parsed.sameSite, created: now)
    }

    /// §5.3 step 3: `Max-Age` first, then `Expires`; `nil` for a session cookie. Capped at ``maximumLifetime``.
    static func expiry(of parsed: SetCookie, now: Date) -> Date? {
        let latest = now.addingTimeInterval(maximumLifetime)
        if let maxAge = parsed.maxAge {
            guard maxAge > 0 else { return Date.distantPast }
            return min(now.addingTimeInterval(TimeInterval(min(maxAge, Int64(maximumLifetime)))), latest)
        }
        return parsed.expires.map { min($0, latest) }
    }

    /// RFC 6265bis §4.1.3: a `__Secure-` cookie needs `Secure` from a secure URL; a `__Host-` cookie also
    /// needs `Path=/` and no `Domain`. The prefixes match in any case, as the draft's latest text says.
    static func prefixAllowed(_ parsed: SetCookie, secureOrigin: Bool) -> Bool {
        let lowered = parsed.name.prefix(7).lowercased()
        if lowered == "__host-" {
            return parsed.isSecure && secureOrigin && parsed.domain == nil && parsed.path == "/"
        }
        if parsed.name.prefix(9).lowercased() == "__secure-" {
            return parsed.isSecure && secureOrigin
        }
        return true
    }
}
