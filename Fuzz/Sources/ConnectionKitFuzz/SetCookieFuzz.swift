import Foundation

@testable import ConnectionKit

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `Set-Cookie` fields as a hostile server sends them (RFC 6265 §5.2, one field or several joined with ", "):
/// whatever the bytes, nothing traps, a stored cookie's name and value fit the limit, and the `Cookie`
/// header the jar builds from them passes the wire check (no control character reaches a request).
enum SetCookieFuzz {
    static let secureURL = URL(string: "https://www.example.com/a/b")!
    static let plainURL = URL(string: "http://www.example.com/a/b")!
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func run(_ input: Data) {
        let field = String(decoding: input, as: UTF8.self)
        _ = CookieDate.parse(field)
        let jar = CookieJar(maximumCookiesPerDomain: 8, maximumCookies: 16)
        // The first byte picks the URL the cookies come from, so both Secure rules are reached.
        let origin = (input.first ?? 0) & 1 == 0 ? secureURL : plainURL
        // As URLSession hands them over: one joined field, split again as a browser would.
        jar.store(setCookieFields: SetCookie.split(joined: field), from: origin, now: now)
        for url in [secureURL, plainURL] {
            let cookies = jar.cookies(for: url, now: now)
            for cookie in cookies where cookie.name.utf8.count + cookie.value.utf8.count > SetCookie.maximumSize {
                fatalError("a cookie of \(cookie.name.utf8.count + cookie.value.utf8.count) bytes was stored")
            }
            if url == plainURL, cookies.contains(where: \.isSecure) {
                fatalError("a Secure cookie was sent over http")
            }
            guard let header = CookieJar.header(for: cookies) else { continue }
            do {
                try WireValidation.check(method: nil, headerFields: [("Cookie", header)], hook: "cookieJar")
            } catch {
                fatalError("the jar built a Cookie header the wire check refuses: \(error)")
            }
        }
        if jar.state.withLock({ $0.count }) > 16 { fatalError("the jar kept more cookies than its limit") }
    }
}
