import Foundation
import Testing

@testable import ConnectionKit

@Suite("Cache-Control parsing", .offThePool, .timeLimit(.minutes(1)))
struct CacheControlTests {
    @Test("directive names are case-insensitive and arguments may be quoted, with commas inside the quotes")
    func namesAndQuotedArguments() {
        let control = CacheControl(#"Max-Age=60, private="set-cookie, x-a", NO-STORE"#)
        #expect(control.seconds("max-age") == .value(60))
        #expect(control.arguments["private"] == .some("set-cookie, x-a"))
        #expect(control.has("no-store"))
        #expect(!control.has("x-a"))
    }

    @Test("a quoted delta-seconds is read; an escaped quote stays inside the string")
    func quotedSeconds() {
        #expect(CacheControl(#"max-age="120""#).seconds("max-age") == .value(120))
        #expect(CacheControl(#"ext="a\"b, c", public"#).arguments["ext"] == .some(#"a"b, c"#))
        #expect(CacheControl(#"ext="a\"b, c", public"#).has("public"))
    }

    @Test("a huge number saturates at 2^31 instead of overflowing")
    func hugeNumbersSaturate() {
        let digits = String(repeating: "9", count: 400)
        #expect(CacheControl("max-age=\(digits)").seconds("max-age") == .value(CacheControl.maximumDelta))
        #expect(CacheControl("max-age=2147483649").seconds("max-age") == .value(CacheControl.maximumDelta))
        #expect(CacheControl("max-age=2147483647").seconds("max-age") == .value(2_147_483_647))
    }

    @Test("a negative, fractional, empty or missing argument is invalid, not a number")
    func garbageIsInvalid() {
        for field in ["max-age=-1", "max-age=1.5", "max-age=", "max-age", "max-age=abc", "max-age=+5", "max-age=0x10"] {
            #expect(CacheControl(field).seconds("max-age") == .invalid, "\(field)")
        }
        #expect(CacheControl("public").seconds("max-age") == .absent)
    }

    @Test("a duplicate with another value makes the directive invalid; an identical duplicate does not")
    func duplicates() {
        #expect(CacheControl("max-age=60, max-age=3600").seconds("max-age") == .invalid)
        #expect(CacheControl("max-age=60, max-age=60").seconds("max-age") == .value(60))
    }

    @Test("an unterminated quote, stray separators and control bytes end cleanly")
    func hostileText() {
        #expect(CacheControl(#"max-age=5, x="never closed, no-store"#).seconds("max-age") == .value(5))
        #expect(!CacheControl(#"max-age=5, x="never closed, no-store"#).has("no-store"))
        let control = CacheControl(",,, ,=, =x, \u{0}, max-age=7 garbage, no-cache")
        #expect(control.seconds("max-age") == .value(7))
        #expect(control.has("no-cache"))
        #expect(CacheControl(nil).arguments.isEmpty)
    }

    @Test("at most 64 directives are kept")
    func directiveLimit() {
        let field = (0..<10_000).map { "d\($0)" }.joined(separator: ",")
        #expect(CacheControl(field).arguments.count == CacheControl.maximumDirectives)
    }
}
