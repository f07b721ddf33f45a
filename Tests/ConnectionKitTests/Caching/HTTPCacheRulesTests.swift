import Foundation
import Testing

@testable import ConnectionKit

@Suite("HTTP cache rules: storing and freshness (RFC 9111 §3, §4.2)", .offThePool, .timeLimit(.minutes(1)))
struct HTTPCacheRulesTests {
    typealias Rules = HTTPCacheRules
    let get = CacheFixtures.request()

    @Test("only GET responses are stored; a final status cacheable by default needs no directive")
    func storableMethodsAndStatuses() {
        #expect(Rules.isStorable(request: get, status: 200, headers: [:]))
        #expect(Rules.isStorable(request: get, status: 404, headers: [:]))
        #expect(!Rules.isStorable(request: CacheFixtures.request(method: "POST"), status: 200, headers: [:]))
        #expect(!Rules.isStorable(request: CacheFixtures.request(method: "HEAD"), status: 200, headers: [:]))
        for status in [201, 302, 307, 500, 503, 206, 304, 100] {
            #expect(!Rules.isStorable(request: get, status: status, headers: [:]), "\(status)")
        }
    }

    @Test("a status not cacheable by default is stored when max-age, Expires, public or private says so")
    func explicitlyCacheable() {
        for headers in [
            ["cache-control": "max-age=60"], ["expires": "Thu, 01 Jan 2037 00:00:00 GMT"],
            ["cache-control": "public"], ["cache-control": "private"],
        ] {
            #expect(Rules.isStorable(request: get, status: 302, headers: headers), "\(headers)")
        }
        #expect(!Rules.isStorable(request: get, status: 206, headers: ["cache-control": "max-age=60"]))
    }

    @Test("no-store on the response or on the request, and Vary: *, prevent storing")
    func noStore() {
        #expect(!Rules.isStorable(request: get, status: 200, headers: ["cache-control": "public, no-store"]))
        let noStoreRequest = CacheFixtures.request(["Cache-Control": "no-store"])
        #expect(!Rules.isStorable(request: noStoreRequest, status: 200, headers: ["cache-control": "max-age=60"]))
        #expect(!Rules.isStorable(request: get, status: 200, headers: ["vary": "accept, *"]))
    }

    @Test("Set-Cookie and hop-by-hop fields are never among the stored fields")
    func unstoredFields() {
        let stored = Rules.storedHeaders(
            Rules.normalized(["Set-Cookie": "a=b", "Connection": "close", "ETag": "\"1\"", "Keep-Alive": "5"]))
        #expect(stored == ["etag": "\"1\""])
    }

    @Test("the fields a Connection field names are stored neither from a response nor from a 304 (RFC 9111 §3.1)")
    func connectionNamedFields() {
        let stored = Rules.storedHeaders(
            Rules.normalized(["Connection": "X-Hop , close,Other", "X-Hop": "1", "Other": "2", "ETag": "\"1\""]))
        #expect(stored == ["etag": "\"1\""])
        let entry = CacheFixtures.entry(["etag": "\"1\""])
        let later = CacheFixtures.base.addingTimeInterval(10)
        let updated = Rules.updated(
            entry, notModifiedHeaders: ["Connection": "x-hop", "X-Hop": "1", "X-New": "2"], requestTime: later,
            responseTime: later)
        #expect(updated?.headers["x-hop"] == nil)
        #expect(updated?.headers["x-new"] == "2")
    }

    @Test("must-understand ignores no-store for an understood status and refuses any other (RFC 9111 §5.2.2.3)")
    func mustUnderstand() {
        let understood = ["cache-control": "must-understand, no-store, max-age=60"]
        #expect(Rules.isStorable(request: get, status: 200, headers: understood))
        #expect(Rules.isStorable(request: get, status: 307, headers: understood))
        #expect(!Rules.isStorable(request: get, status: 299, headers: ["cache-control": "must-understand, max-age=60"]))
        #expect(!Rules.isStorable(request: get, status: 299, headers: understood))
        #expect(!Rules.isStorable(request: get, status: 302, headers: ["cache-control": "must-understand, no-store"]))
        let noStoreRequest = CacheFixtures.request(["Cache-Control": "no-store"])
        #expect(!Rules.isStorable(request: noStoreRequest, status: 200, headers: understood))
    }

    @Test("a 3xx body is stored only when an unencoded Content-Length vouches for it; any mismatch is refused")
    func bodyThatMayBeIncomplete() {
        #expect(Rules.bodyIsComplete(status: 301, headers: ["content-length": "4"], bodyLength: 4))
        #expect(!Rules.bodyIsComplete(status: 301, headers: ["content-length": "4"], bodyLength: 0))
        #expect(!Rules.bodyIsComplete(status: 300, headers: [:], bodyLength: 4))
        #expect(
            !Rules.bodyIsComplete(
                status: 308, headers: ["content-length": "4", "content-encoding": "gzip"], bodyLength: 9))
        #expect(Rules.bodyIsComplete(status: 200, headers: [:], bodyLength: 4))
        #expect(
            Rules.bodyIsComplete(
                status: 200, headers: ["content-length": "4", "content-encoding": "gzip"], bodyLength: 9))
        #expect(!Rules.bodyIsComplete(status: 200, headers: ["content-length": "4"], bodyLength: 3))
        let cache = HTTPCache.inMemory()
        let stored = cache.store(
            statusCode: 301, headerFields: ["Content-Length": "4", "Cache-Control": "max-age=60"], body: Data(),
            for: get, requestTime: CacheFixtures.base, responseTime: CacheFixtures.base)
        #expect(!stored)
    }

    @Test("max-age wins over Expires; Expires − Date otherwise; an invalid Expires or max-age is stale")
    func explicitFreshness() {
        let expires = CacheFixtures.httpDate(CacheFixtures.base.addingTimeInterval(300))
        #expect(
            Rules.freshnessLifetime(CacheFixtures.entry(["cache-control": "max-age=60", "expires": expires])) == 60)
        #expect(Rules.freshnessLifetime(CacheFixtures.entry(["expires": expires])) == 300)
        #expect(Rules.freshnessLifetime(CacheFixtures.entry(["expires": "0", "last-modified": expires])) == 0)
        #expect(Rules.freshnessLifetime(CacheFixtures.entry(["cache-control": "max-age=-5", "expires": expires])) == 0)
        let past = CacheFixtures.httpDate(CacheFixtures.base.addingTimeInterval(-300))
        #expect(Rules.freshnessLifetime(CacheFixtures.entry(["expires": past])) == 0)
    }

    @Test(
        "an Expires in the future but not exactly an HTTP date makes the response stale (RFC 9111 §5.3)",
        arguments: [
            "Thu 01 Jan 2037 00:00:00 GMT", "Thu, 01-Jan-2037 00:00:00 GMT", "Thu, 01 Jan 2037 00.00.00 GMT",
            "Thu, 01 Jan 2037 0:00:00 GMT", "Thu,  01 Jan 2037 00:00:00 GMT", "Thu, 01 Jan 2037 00:00:00 UTC",
        ])
    func invalidExpiresIsStale(expires: String) {
        #expect(Rules.freshnessLifetime(CacheFixtures.entry(["expires": expires])) == 0)
        let valid = expires.replacingOccurrences(of: "UTC", with: "gmt")
        if valid != expires {
            #expect(Rules.freshnessLifetime(CacheFixtures.entry(["expires": valid])) > 0, "wrong case is accepted")
        }
    }

    @Test("heuristic freshness is 10% of Date − Last-Modified, capped at a day, only for default-cacheable statuses")
    func heuristicFreshness() {
        let tenHoursAgo = CacheFixtures.httpDate(CacheFixtures.base.addingTimeInterval(-36_000))
        #expect(Rules.freshnessLifetime(CacheFixtures.entry(["last-modified": tenHoursAgo])) == 3_600)
        let yearsAgo = CacheFixtures.httpDate(CacheFixtures.base.addingTimeInterval(-100_000_000))
        #expect(Rules.freshnessLifetime(CacheFixtures.entry(["last-modified": yearsAgo])) == Rules.heuristicLimit)
        #expect(Rules.freshnessLifetime(CacheFixtures.entry(["last-modified": tenHoursAgo], status: 302)) == 0)
        #expect(Rules.freshnessLifetime(CacheFixtures.entry([:])) == 0)
    }

    @Test("current age adds Age, the response delay and the time resident (RFC 9111 §4.2.3)")
    func currentAge() {
        var entry = CacheFixtures.entry(["age": "100"])
        entry.requestTime = CacheFixtures.base.addingTimeInterval(-2)
        let now = CacheFixtures.base.addingTimeInterval(30)
        // corrected initial age = Age 100 + response delay 2; resident 30 s.
        #expect(Rules.currentAge(entry, now: now) == 132)
        // A Date 50 s before the response arrived (a slow or skewed path) counts when larger than Age.
        let skewed = CacheFixtures.entry(
            ["date": CacheFixtures.httpDate(CacheFixtures.base.addingTimeInterval(-50))])
        #expect(Rules.currentAge(skewed, now: now) == 80)
        #expect(Rules.currentAge(CacheFixtures.entry(["age": "junk"]), now: now) == 30)
    }
}
