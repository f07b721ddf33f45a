import Foundation
import Testing

@testable import ConnectionKit

@Suite("The cookie jar keeps RFC 6265's rules", .offThePool, .timeLimit(.minutes(1)))
struct CookieJarTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let site = URL(string: "https://www.example.com/login")!

    private func names(_ jar: CookieJar, _ url: String, at now: Date = Self.now) -> [String] {
        jar.cookies(for: URL(string: url)!, now: now).map(\.name)
    }

    @Test("without Domain a cookie is host-only; with it, subdomains get it too, other hosts never")
    func domainMatching() {
        let jar = CookieJar()
        jar.store(setCookie: "host=1", from: Self.site, now: Self.now)
        jar.store(setCookie: "wide=1; Domain=example.com", from: Self.site, now: Self.now)
        #expect(Set(names(jar, "https://www.example.com/")) == ["host", "wide"])
        #expect(names(jar, "https://api.example.com/") == ["wide"])
        #expect(names(jar, "https://example.com/") == ["wide"])
        #expect(names(jar, "https://notexample.com/") == [])
        #expect(names(jar, "https://sub.www.example.com/") == ["wide"])
    }

    @Test("a Domain the host is not in is refused")
    func foreignDomainRefused() {
        let jar = CookieJar()
        #expect(!jar.store(setCookie: "a=1; Domain=other.com", from: Self.site, now: Self.now))
        #expect(!jar.store(setCookie: "a=1; Domain=sub.www.example.com", from: Self.site, now: Self.now))
        #expect(!jar.store(setCookie: "a=1; Domain=ple.com", from: Self.site, now: Self.now))
        #expect(jar.allCookies.isEmpty)
    }

    @Test("a Domain naming a public suffix is refused (co.uk, github.io, com), unless it is the host itself")
    func publicSuffixRefused() {
        let jar = CookieJar()
        #expect(!jar.store(setCookie: "a=1; Domain=co.uk", from: URL(string: "https://shop.co.uk/")!, now: Self.now))
        #expect(
            !jar.store(setCookie: "a=1; Domain=github.io", from: URL(string: "https://me.github.io/")!, now: Self.now))
        #expect(!jar.store(setCookie: "a=1; Domain=com", from: Self.site, now: Self.now))
        #expect(
            jar.store(setCookie: "a=1; Domain=shop.co.uk", from: URL(string: "https://shop.co.uk/")!, now: Self.now))
        // The host itself may be a public suffix: the cookie becomes host-only.
        #expect(jar.store(setCookie: "b=1; Domain=github.io", from: URL(string: "https://github.io/")!, now: Self.now))
        #expect(names(jar, "https://me.github.io/") == [])
        #expect(names(jar, "https://github.io/") == ["b"])
    }

    @Test("an IP address host matches only itself")
    func ipAddresses() {
        let jar = CookieJar()
        jar.store(setCookie: "a=1", from: URL(string: "http://127.0.0.1:8080/")!, now: Self.now)
        #expect(!jar.store(setCookie: "b=1; Domain=0.0.1", from: URL(string: "http://127.0.0.1/")!, now: Self.now))
        #expect(names(jar, "http://127.0.0.1:9090/x") == ["a"])
        #expect(names(jar, "http://127.0.0.2/") == [])
    }

    @Test("Path defaults to the URL's directory and matches only at a / boundary")
    func paths() {
        let jar = CookieJar()
        jar.store(setCookie: "default=1", from: URL(string: "https://www.example.com/docs/web/page")!, now: Self.now)
        jar.store(setCookie: "top=1", from: URL(string: "https://www.example.com/page")!, now: Self.now)
        jar.store(setCookie: "explicit=1; Path=/docs", from: Self.site, now: Self.now)
        #expect(names(jar, "https://www.example.com/docs/web") == ["default", "explicit", "top"])
        #expect(names(jar, "https://www.example.com/docs/web/x/y") == ["default", "explicit", "top"])
        #expect(names(jar, "https://www.example.com/docs/webinar") == ["explicit", "top"])
        #expect(names(jar, "https://www.example.com/docsx") == ["top"])
        #expect(names(jar, "https://www.example.com/") == ["top"])
    }

    @Test("paths are read as sent: a trailing / is kept (default path of /a/b/ is /a/b; Path=/a/dir/ reaches /a/dir/)")
    func pathsKeepTheTrailingSlash() {
        let jar = CookieJar()
        jar.store(setCookie: "dir=1; Path=/a/dir/", from: Self.site, now: Self.now)
        jar.store(setCookie: "nopath=1", from: URL(string: "https://www.example.com/a/b/")!, now: Self.now)
        jar.store(setCookie: "shallow=1", from: URL(string: "https://www.example.com/a/")!, now: Self.now)
        #expect(jar.allCookies.first { $0.name == "nopath" }?.path == "/a/b")
        #expect(jar.allCookies.first { $0.name == "shallow" }?.path == "/a")
        #expect(names(jar, "https://www.example.com/a/dir/") == ["dir", "shallow"])
        #expect(names(jar, "https://www.example.com/a/dir/x") == ["dir", "shallow"])
        #expect(names(jar, "https://www.example.com/a/dir") == ["shallow"])
        #expect(names(jar, "https://www.example.com/a/b") == ["nopath", "shallow"])
        #expect(names(jar, "https://www.example.com/a/b/") == ["nopath", "shallow"])
        #expect(names(jar, "https://www.example.com/a/bc") == ["shallow"])
    }

    @Test("paths are compared undecoded: a percent-encoded Path matches the same encoding only")
    func pathsArePercentEncoded() {
        let jar = CookieJar()
        jar.store(setCookie: "encoded=1; Path=/caf%C3%A9", from: Self.site, now: Self.now)
        jar.store(setCookie: "slash=1", from: URL(string: "https://www.example.com/x%2Fy/page")!, now: Self.now)
        #expect(names(jar, "https://www.example.com/caf%C3%A9/menu") == ["encoded"])
        #expect(names(jar, "https://www.example.com/caf%c3%a9/menu") == [])
        #expect(jar.allCookies.first { $0.name == "slash" }?.path == "/x%2Fy")
        #expect(names(jar, "https://www.example.com/x%2Fy/other") == ["slash"])
        #expect(names(jar, "https://www.example.com/x/y/other") == [])
    }

    @Test("the Cookie header lists longer paths first, then older cookies")
    func order() {
        let jar = CookieJar()
        jar.store(setCookie: "old=1; Path=/", from: Self.site, now: Self.now)
        jar.store(setCookie: "deep=1; Path=/a/b", from: Self.site, now: Self.now.addingTimeInterval(1))
        jar.store(setCookie: "new=1; Path=/", from: Self.site, now: Self.now.addingTimeInterval(2))
        jar.store(setCookie: "mid=1; Path=/a", from: Self.site, now: Self.now.addingTimeInterval(3))
        #expect(names(jar, "https://www.example.com/a/b/c") == ["deep", "mid", "old", "new"])
        // A replacement keeps its place: it keeps the creation time of the cookie it replaces.
        jar.store(setCookie: "old=2; Path=/", from: Self.site, now: Self.now.addingTimeInterval(4))
        #expect(names(jar, "https://www.example.com/") == ["old", "new"])
        #expect(CookieJar.header(for: jar.cookies(for: Self.site, now: Self.now)) == "old=2; new=1")
    }

    @Test("the cookies of one response keep their order of creation, a Domain cookie before a host-only one too")
    func oneResponseKeepsCreationOrderAcrossDomains() {
        let jar = CookieJar()
        jar.store(
            setCookieFields: ["wide=1; Domain=example.com", "host=1", "wider=1; Domain=www.example.com"],
            from: Self.site, now: Self.now)
        #expect(names(jar, "https://www.example.com/") == ["wide", "host", "wider"])
    }

    @Test("an empty Domain is ignored: an earlier Domain the host is not in still refuses the cookie")
    func emptyDomainIgnored() throws {
        let jar = CookieJar()
        #expect(!jar.store(setCookie: "a=1; Domain=api.example.com; Domain=", from: Self.site, now: Self.now))
        #expect(jar.store(setCookie: "b=1; Domain=example.com; Domain=", from: Self.site, now: Self.now))
        #expect(names(jar, "https://api.example.com/") == ["b"])
        jar.store(setCookie: "c=1; Domain=example.com; Domain=.", from: Self.site, now: Self.now)
        #expect(names(jar, "https://api.example.com/") == ["b"], "Domain=. leaves c host-only")
        #expect(try #require(SetCookie("d=1; Domain=")).domain == nil)
    }

    @Test("Secure cookies are never set from http and never sent over http")
    func secure() {
        let jar = CookieJar()
        let plain = URL(string: "http://www.example.com/")!
        #expect(!jar.store(setCookie: "s=1; Secure", from: plain, now: Self.now))
        #expect(jar.store(setCookie: "s=1; Secure", from: Self.site, now: Self.now))
        #expect(names(jar, "http://www.example.com/") == [])
        #expect(names(jar, "https://www.example.com/") == ["s"])
        // Nor replaced from http.
        #expect(!jar.store(setCookie: "s=2", from: plain, now: Self.now))
        #expect(jar.cookies(for: Self.site, now: Self.now).first?.value == "1")
    }

    @Test("HttpOnly is kept and SameSite stored")
    func flagsStored() throws {
        let jar = CookieJar()
        jar.store(setCookie: "a=1; HttpOnly; SameSite=Lax", from: Self.site, now: Self.now)
        let cookie = try #require(jar.cookies(for: Self.site, now: Self.now).first)
        #expect(cookie.isHTTPOnly)
        #expect(cookie.sameSite == .lax)
    }

    @Test("Max-Age wins over Expires, whichever comes first")
    func maxAgeWins() throws {
        let jar = CookieJar()
        jar.store(setCookie: "a=1; Max-Age=60; Expires=Wed, 21 Oct 2015 07:28:00 GMT", from: Self.site, now: Self.now)
        jar.store(setCookie: "b=1; Expires=Wed, 21 Oct 2015 07:28:00 GMT; Max-Age=60", from: Self.site, now: Self.now)
        let cookies = jar.cookies(for: Self.site, now: Self.now)
        #expect(Set(cookies.map(\.name)) == ["a", "b"])
        #expect(cookies.allSatisfy { $0.expires == Self.now.addingTimeInterval(60) })
        #expect(names(jar, "https://www.example.com/", at: Self.now.addingTimeInterval(61)) == [])
    }

    @Test(
        "Max-Age=0, a negative Max-Age or a past Expires deletes the cookie",
        arguments: [
            "Max-Age=0", "Max-Age=-1", "Expires=Thu, 01 Jan 1970 00:00:00 GMT",
        ])
    func deletion(attribute: String) {
        let jar = CookieJar()
        jar.store(setCookie: "a=1; Path=/", from: Self.site, now: Self.now)
        jar.store(setCookie: "b=1; Path=/", from: Self.site, now: Self.now)
        #expect(jar.store(setCookie: "a=gone; Path=/; \(attribute)", from: Self.site, now: Self.now))
        #expect(names(jar, "https://www.example.com/") == ["b"])
    }

    @Test("a session cookie has no expiry; a persistent one lives at most 400 days")
    func lifetimes() throws {
        let jar = CookieJar()
        jar.store(setCookie: "session=1", from: Self.site, now: Self.now)
        jar.store(setCookie: "long=1; Max-Age=999999999", from: Self.site, now: Self.now)
        let cookies = jar.cookies(for: Self.site, now: Self.now)
        #expect(cookies.first { $0.name == "session" }?.isSession == true)
        #expect(cookies.first { $0.name == "long" }?.expires == Self.now.addingTimeInterval(400 * 86_400))
    }

    @Test("__Secure- needs Secure from https; __Host- also needs Path=/ and no Domain")
    func prefixes() {
        let jar = CookieJar()
        let plain = URL(string: "http://www.example.com/")!
        #expect(!jar.store(setCookie: "__Secure-a=1", from: Self.site, now: Self.now))
        #expect(!jar.store(setCookie: "__Secure-a=1; Secure", from: plain, now: Self.now))
        #expect(jar.store(setCookie: "__Secure-a=1; Secure", from: Self.site, now: Self.now))
        #expect(!jar.store(setCookie: "__Host-b=1; Secure", from: Self.site, now: Self.now))
        #expect(!jar.store(setCookie: "__Host-b=1; Secure; Path=/; Domain=example.com", from: Self.site, now: Self.now))
        #expect(!jar.store(setCookie: "__host-b=1; Path=/", from: Self.site, now: Self.now))
        #expect(jar.store(setCookie: "__Host-b=1; Secure; Path=/", from: Self.site, now: Self.now))
        #expect(Set(names(jar, "https://www.example.com/")) == ["__Secure-a", "__Host-b"])
    }

    @Test("past the per-domain limit the least recently used cookie of that domain is evicted")
    func perDomainLimit() {
        let jar = CookieJar(maximumCookiesPerDomain: 3, maximumCookies: 100)
        for (index, path) in ["/zero", "/one", "/two"].enumerated() {
            jar.store(
                setCookie: "c\(index)=1; Path=\(path)", from: Self.site, now: Self.now.addingTimeInterval(Double(index))
            )
        }
        jar.store(setCookie: "other=1", from: URL(string: "https://other.com/")!, now: Self.now)
        // c0 is sent after c1 and c2 were set: c1 is now the least recently used.
        #expect(names(jar, "https://www.example.com/zero", at: Self.now.addingTimeInterval(5)) == ["c0"])
        jar.store(setCookie: "c3=1", from: Self.site, now: Self.now.addingTimeInterval(6))
        #expect(Set(jar.allCookies.map(\.name)) == ["c0", "c2", "c3", "other"])
        let small = CookieJar(maximumCookiesPerDomain: 2, maximumCookies: 100)
        for index in 0..<3 {
            small.store(setCookie: "c\(index)=1", from: Self.site, now: Self.now.addingTimeInterval(Double(index)))
        }
        #expect(names(small, "https://www.example.com/", at: Self.now.addingTimeInterval(9)) == ["c1", "c2"])
    }

    @Test("past the total limit the jar's least recently used cookie is evicted, expired ones first")
    func totalLimit() {
        let jar = CookieJar(maximumCookiesPerDomain: 50, maximumCookies: 3)
        jar.store(setCookie: "a=1", from: URL(string: "https://a.com/")!, now: Self.now)
        jar.store(
            setCookie: "b=1; Max-Age=1", from: URL(string: "https://b.com/")!, now: Self.now.addingTimeInterval(1))
        jar.store(setCookie: "c=1", from: URL(string: "https://c.com/")!, now: Self.now.addingTimeInterval(2))
        jar.store(setCookie: "d=1", from: URL(string: "https://d.com/")!, now: Self.now.addingTimeInterval(3))
        // b had expired: it goes, and a (the oldest) stays.
        #expect(names(jar, "https://a.com/", at: Self.now.addingTimeInterval(4)) == ["a"])
        jar.store(setCookie: "e=1", from: URL(string: "https://e.com/")!, now: Self.now.addingTimeInterval(5))
        // a was just used; c is now the least recently used.
        #expect(names(jar, "https://c.com/", at: Self.now.addingTimeInterval(6)) == [])
        #expect(jar.state.withLock { $0.count } == 3)
    }

    @Test("a request's own Cookie header is kept first; the jar adds only the names it lacks")
    func mergedHeader() {
        let jar = [
            Cookie(name: "session", value: "fromJar", domain: "x"), Cookie(name: "csrf", value: "t", domain: "x"),
        ]
        #expect(
            CookieStage.mergedCookieHeader(own: "session=mine; theme=dark", jar: jar)
                == "session=mine; theme=dark; csrf=t")
        #expect(CookieStage.mergedCookieHeader(own: nil, jar: jar) == "session=fromJar; csrf=t")
        #expect(CookieStage.mergedCookieHeader(own: "a=1", jar: []) == "a=1")
        #expect(CookieStage.mergedCookieHeader(own: nil, jar: []) == nil)
    }

    @Test("the public-suffix list compiled into the package parses and knows co.uk and github.io")
    func compiledSuffixList() {
        let list = PublicSuffixList(PublicSuffixList.compiledRules)
        #expect(list.rules.count > 5_000)
        #expect(list.isPublicSuffix("co.uk"))
        #expect(list.isPublicSuffix("github.io"))
        #expect(list.isPublicSuffix("com"))
        #expect(!list.isPublicSuffix("example.com"))
        #expect(!list.isPublicSuffix("bbc.co.uk"))
        // Wildcards and their exceptions: *.ck and !www.ck.
        #expect(list.isPublicSuffix("anything.ck"))
        #expect(!list.isPublicSuffix("www.ck"))
        #expect(PublicSuffixList.shared.isPublicSuffix("github.io"))
    }
}
