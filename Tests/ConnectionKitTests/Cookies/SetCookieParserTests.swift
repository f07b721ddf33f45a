import Foundation
import Testing

@testable import ConnectionKit

@Suite("Set-Cookie is parsed as browsers do (RFC 6265 §5.2)", .offThePool, .timeLimit(.minutes(1)))
struct SetCookieParserTests {
    /// 2015-10-21 07:28:00 UTC.
    static let october21 = Date(timeIntervalSince1970: 1_445_412_480)

    @Test(
        "Expires is read in every format servers send",
        arguments: [
            "Wed, 21 Oct 2015 07:28:00 GMT",  // IMF-fixdate (RFC 7231)
            "Wednesday, 21-Oct-15 07:28:00 GMT",  // RFC 850
            "Wed Oct 21 07:28:00 2015",  // asctime
            "Wed, 21-Oct-2015 07:28:00 GMT",  // Netscape, four-digit year
            "21 Oct 2015 07:28:00 GMT",  // no day name
            "Wed, 21 OCT 2015 7:28:0 GMT",  // upper-case month, one-digit fields
            "2015 Oct 21 07:28:00",  // any order
        ])
    func datesInEveryFormat(date: String) throws {
        #expect(CookieDate.parse(date) == Self.october21)
        let parsed = try #require(SetCookie("a=b; Expires=\(date)"))
        #expect(parsed.expires == Self.october21)
    }

    @Test(
        "an impossible date is not a date",
        arguments: [
            "Wed, 31 Feb 2015 07:28:00 GMT", "Wed, 21 Oct 1600 07:28:00 GMT", "Wed, 21 Oct 2015 24:00:00 GMT",
            "21 Oct 2015", "tomorrow", "Wed, 21 Foo 2015 07:28:00 GMT",
        ])
    func impossibleDates(date: String) {
        #expect(CookieDate.parse(date) == nil)
    }

    @Test("two-digit years: 70-99 are 19xx, 00-69 are 20xx")
    func twoDigitYears() throws {
        let sixtyNine = try #require(CookieDate.parse("01 Jan 69 00:00:00"))
        let seventy = try #require(CookieDate.parse("01 Jan 70 00:00:00"))
        #expect(sixtyNine == Date(timeIntervalSince1970: 3_124_224_000))
        #expect(seventy == Date(timeIntervalSince1970: 0))
    }

    @Test("attribute names match in any case; flags and SameSite are read")
    func attributesInAnyCase() throws {
        let parsed = try #require(
            SetCookie("id = a3fWa ; pAtH=/docs; DOMAIN=.Example.COM; sEcUrE; HTTPONLY; samesite=sTrIcT; MAX-AGE=60"))
        #expect(parsed.name == "id")
        #expect(parsed.value == "a3fWa")
        #expect(parsed.path == "/docs")
        #expect(parsed.domain == "example.com")
        #expect(parsed.isSecure)
        #expect(parsed.isHTTPOnly)
        #expect(parsed.sameSite == .strict)
        #expect(parsed.maxAge == 60)
    }

    @Test("a bad attribute is ignored, not the cookie; the last of each attribute wins")
    func badAttributesIgnored() throws {
        let parsed = try #require(
            SetCookie("a=b; Expires=never; Max-Age=12abc; Path=relative; Domain=; Unknown=1; SameSite=sometimes"))
        #expect(parsed.name == "a" && parsed.value == "b")
        #expect(parsed.expires == nil)
        #expect(parsed.maxAge == nil)
        #expect(parsed.path == nil)
        #expect(parsed.domain == nil)
        #expect(parsed.sameSite == .unspecified)
        let last = try #require(SetCookie("a=b; Path=/one; Max-Age=5; Path=/two; Max-Age=-3"))
        #expect(last.path == "/two")
        #expect(last.maxAge == -3)
    }

    @Test(
        "a cookie without =, with an empty name, a control character or over 4096 bytes is refused",
        arguments: [
            "novalue", "=value", " =value", "a=b\u{1}c", "a\u{7F}=b", "a=" + String(repeating: "x", count: 4096),
        ])
    func refused(header: String) {
        #expect(SetCookie(header) == nil)
    }

    @Test("a value may be empty, quoted or hold =; 4096 bytes of name and value are kept")
    func valuesKeptAsSent() throws {
        #expect(try #require(SetCookie("a=")).value == "")
        #expect(try #require(SetCookie("a=\"quoted\"")).value == "\"quoted\"")
        #expect(try #require(SetCookie("a=b=c; Path=/")).value == "b=c")
        #expect(SetCookie("a=" + String(repeating: "x", count: 4095)) != nil)
    }

    @Test("a huge Max-Age saturates instead of overflowing")
    func hugeMaxAge() {
        #expect(SetCookie.maxAge("99999999999999999999999") == Int64.max)
        #expect(SetCookie.maxAge("-99999999999999999999999") == Int64.min)
        #expect(SetCookie.maxAge("+5") == nil)
    }

    @Test("fields a transport joined with \", \" are split at cookies, not at the commas of dates")
    func joinedFields() {
        let joined =
            "a=1; Expires=Wed, 21 Oct 2015 07:28:00 GMT; Path=/, b=2, c=3; expires=Wednesday, 21-Oct-15 07:28:00 GMT"
        #expect(
            SetCookie.split(joined: joined) == [
                "a=1; Expires=Wed, 21 Oct 2015 07:28:00 GMT; Path=/", "b=2",
                "c=3; expires=Wednesday, 21-Oct-15 07:28:00 GMT",
            ])
    }
}
