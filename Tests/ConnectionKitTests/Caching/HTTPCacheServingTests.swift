import Foundation
import Testing

@testable import ConnectionKit

@Suite("HTTP cache rules: serving, revalidating, invalidating", .offThePool, .timeLimit(.minutes(1)))
struct HTTPCacheServingTests {
    typealias Rules = HTTPCacheRules
    let get = CacheFixtures.request()
    let base = CacheFixtures.base

    @Test("a response is fresh until its lifetime, then it must be revalidated")
    func freshThenStale() {
        let entry = CacheFixtures.entry(["cache-control": "max-age=60"])
        #expect(Rules.use(of: entry, for: get, now: base.addingTimeInterval(59)) == .fresh)
        #expect(Rules.use(of: entry, for: get, now: base.addingTimeInterval(61)) == .revalidate)
    }

    @Test("no-cache on the response always revalidates; must-revalidate forbids serving it stale")
    func noCacheAndMustRevalidate() {
        let noCache = CacheFixtures.entry(["cache-control": "max-age=600, no-cache"])
        #expect(Rules.use(of: noCache, for: get, now: base) == .revalidate)
        let strict = CacheFixtures.entry(["cache-control": "max-age=60, must-revalidate, stale-while-revalidate=600"])
        #expect(Rules.use(of: strict, for: get, now: base.addingTimeInterval(90)) == .revalidate)
        #expect(Rules.use(of: strict, for: get, now: base.addingTimeInterval(30)) == .fresh)
    }

    @Test("the request's no-cache, max-age and min-fresh ask for a fresher answer; immutable overrides a reload")
    func requestDirectives() {
        let entry = CacheFixtures.entry(["cache-control": "max-age=600"])
        let now = base.addingTimeInterval(100)
        #expect(
            Rules.use(of: entry, for: CacheFixtures.request(["Cache-Control": "no-cache"]), now: now) == .revalidate)
        #expect(
            Rules.use(of: entry, for: CacheFixtures.request(["Cache-Control": "max-age=50"]), now: now) == .revalidate)
        #expect(Rules.use(of: entry, for: CacheFixtures.request(["Cache-Control": "max-age=500"]), now: now) == .fresh)
        #expect(
            Rules.use(of: entry, for: CacheFixtures.request(["Cache-Control": "min-fresh=550"]), now: now)
                == .revalidate)
        let immutable = CacheFixtures.entry(["cache-control": "max-age=600, immutable"])
        #expect(Rules.use(of: immutable, for: CacheFixtures.request(["Cache-Control": "no-cache"]), now: now) == .fresh)
    }

    @Test("stale-while-revalidate serves a stale response inside its window only")
    func staleWhileRevalidate() {
        let entry = CacheFixtures.entry(["cache-control": "max-age=60, stale-while-revalidate=30"])
        #expect(Rules.use(of: entry, for: get, now: base.addingTimeInterval(80)) == .staleWhileRevalidate)
        #expect(Rules.use(of: entry, for: get, now: base.addingTimeInterval(95)) == .revalidate)
    }

    @Test("stale-if-error answers a failure inside its window; offline first always; network only never")
    func staleIfError() {
        let entry = CacheFixtures.entry(["cache-control": "max-age=60, stale-if-error=100"])
        let inside = base.addingTimeInterval(150)
        let outside = base.addingTimeInterval(170)
        #expect(Rules.answersOnFailure(entry, for: get, policy: .useCache, now: inside))
        #expect(!Rules.answersOnFailure(entry, for: get, policy: .useCache, now: outside))
        #expect(Rules.answersOnFailure(entry, for: get, policy: .offlineFirst, now: base.addingTimeInterval(1e7)))
        #expect(!Rules.answersOnFailure(entry, for: get, policy: .networkOnly, now: base))
        let requestWindow = CacheFixtures.request(["Cache-Control": "stale-if-error=200"])
        #expect(Rules.answersOnFailure(entry, for: requestWindow, policy: .useCache, now: outside))
        let strict = CacheFixtures.entry(["cache-control": "max-age=60, stale-if-error=100, must-revalidate"])
        #expect(!Rules.answersOnFailure(strict, for: get, policy: .useCache, now: inside))
    }

    @Test("Vary: stored selecting values must match the request's; Vary: * never matches")
    func vary() {
        let accepting = CacheFixtures.request(["Accept": "application/json", "Accept-Language": "en"])
        var entry = CacheFixtures.entry(["vary": "Accept"])
        entry.vary = Rules.varyValues(names: ["accept"], request: accepting)
        #expect(Rules.varyMatches(entry, request: accepting))
        #expect(Rules.varyMatches(entry, request: CacheFixtures.request(["accept": "application/json"])))
        #expect(!Rules.varyMatches(entry, request: CacheFixtures.request(["Accept": "text/html"])))
        #expect(!Rules.varyMatches(entry, request: get))
        var star = CacheFixtures.entry(["vary": "*"])
        star.vary = []
        #expect(!Rules.varyMatches(star, request: get))
    }

    @Test("a Vary on Authorization stores a digest of the credentials, never the credentials")
    func varyOnSecretField() {
        let request = CacheFixtures.request(["Authorization": "Bearer s3cr3t"])
        let values = Rules.varyValues(names: ["authorization"], request: request)
        #expect(values.first?.value?.contains("s3cr3t") == false)
        #expect(values.first?.value?.utf8.count == 64)
    }

    @Test("the conditional request carries If-None-Match from ETag and If-Modified-Since from Last-Modified")
    func conditionalHeaders() {
        let entry = CacheFixtures.entry(["etag": "\"v1\"", "last-modified": "Wed, 01 Nov 2023 00:00:00 GMT"])
        #expect(
            Rules.conditionalHeaders(for: entry)
                == ["If-None-Match": "\"v1\"", "If-Modified-Since": "Wed, 01 Nov 2023 00:00:00 GMT"])
        #expect(Rules.conditionalHeaders(for: CacheFixtures.entry([:])).isEmpty)
    }

    @Test("a 304 replaces stored fields but not Content-Length, never adds Set-Cookie, and restarts the age")
    func notModifiedUpdate() throws {
        let entry = CacheFixtures.entry(["etag": "\"v1\"", "content-length": "4", "cache-control": "max-age=60"])
        let later = base.addingTimeInterval(500)
        let updated = try #require(
            Rules.updated(
                entry,
                notModifiedHeaders: [
                    "Cache-Control": "max-age=120", "Content-Length": "0", "Set-Cookie": "a=b", "ETag": "\"v1\"",
                    "Date": CacheFixtures.httpDate(later),
                ], requestTime: later, responseTime: later))
        #expect(updated.headers["cache-control"] == "max-age=120")
        #expect(updated.headers["content-length"] == "4")
        #expect(updated.headers["set-cookie"] == nil)
        #expect(updated.body == entry.body)
        #expect(Rules.use(of: updated, for: get, now: later.addingTimeInterval(100)) == .fresh)
        #expect(
            Rules.updated(entry, notModifiedHeaders: ["ETag": "\"v2\""], requestTime: later, responseTime: later) == nil
        )
    }

    @Test("an unsafe request answered 2xx/3xx invalidates its URL, Location and Content-Location on the same origin")
    func invalidation() {
        let post = CacheFixtures.request(method: "POST", url: URL(string: "https://api.example.com/events")!)
        let urls = Rules.invalidatedURLs(
            request: post, status: 201,
            headers: ["Location": "/events/7", "Content-Location": "https://other.example.com/events/7"])
        #expect(urls == ["https://api.example.com/events", "https://api.example.com/events/7"])
        #expect(Rules.invalidatedURLs(request: post, status: 500, headers: [:]).isEmpty)
        #expect(Rules.invalidatedURLs(request: get, status: 200, headers: [:]).isEmpty)
        let delete = CacheFixtures.request(method: "DELETE")
        #expect(Rules.invalidatedURLs(request: delete, status: 204, headers: [:]) == [CacheFixtures.url.absoluteString])
    }
}
