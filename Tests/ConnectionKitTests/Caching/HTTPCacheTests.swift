import Foundation
import Testing

@testable import ConnectionKit

@Suite("HTTPCache: lookups, credentials, revalidation, offline first", .offThePool, .timeLimit(.minutes(1)))
struct HTTPCacheTests {
    let base = CacheFixtures.base

    func storeResponse(
        _ cache: HTTPCache, for request: HTTPCacheRequest, headers: [String: String], body: String = "events"
    ) -> Bool {
        cache.store(
            statusCode: 200, headerFields: headers, body: Data(body.utf8), for: request, requestTime: base,
            responseTime: base)
    }

    @Test("a stored fresh GET answers the next GET and a HEAD (without body); other methods miss")
    func freshHit() throws {
        let cache = HTTPCache.inMemory()
        let request = CacheFixtures.request()
        #expect(storeResponse(cache, for: request, headers: ["Cache-Control": "max-age=60", "ETag": "\"1\""]))
        guard case .fresh(let response) = cache.lookup(request, now: base.addingTimeInterval(10)) else {
            Issue.record("expected a fresh hit")
            return
        }
        #expect(response.body == Data("events".utf8))
        #expect(response.age == 10)
        #expect(!response.isStale)
        guard case .fresh(let head) = cache.lookup(CacheFixtures.request(method: "HEAD"), now: base) else {
            Issue.record("expected HEAD answered from the stored GET")
            return
        }
        #expect(head.body.isEmpty)
        #expect(cache.lookup(CacheFixtures.request(method: "POST"), now: base) == .miss)
    }

    @Test("a response to a request with Authorization answers only the same credentials")
    func partitionedByCredentials() {
        let cache = HTTPCache.inMemory()
        let alice = CacheFixtures.request(["Authorization": "Bearer alice"])
        #expect(storeResponse(cache, for: alice, headers: ["Cache-Control": "max-age=60"], body: "alice's"))
        #expect(cache.lookup(CacheFixtures.request(["Authorization": "Bearer bob"]), now: base) == .miss)
        #expect(cache.lookup(CacheFixtures.request(), now: base) == .miss)
        guard case .fresh(let response) = cache.lookup(alice, now: base) else {
            Issue.record("expected alice's own hit")
            return
        }
        #expect(response.body == Data("alice's".utf8))
    }

    @Test(
        "Vary: each variant of a URL is kept, in memory and in a folder (and reopened): English, French, English again all hit",
        arguments: [false, true])
    func varyKeepsEveryVariant(inFolder: Bool) throws {
        let folder = CacheFixtures.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let cache = inFolder ? try HTTPCache(folder: folder, log: { _ in }) : HTTPCache.inMemory()
        let headers = ["Cache-Control": "max-age=60", "Vary": "Accept-Language"]
        for language in ["en", "fr"] {
            let request = CacheFixtures.request(["Accept-Language": language])
            #expect(storeResponse(cache, for: request, headers: headers, body: "in \(language)"))
        }
        let reopened = inFolder ? try HTTPCache(folder: folder, log: { _ in }) : cache
        for store in [cache, reopened] {
            for language in ["en", "fr", "en"] {
                guard
                    case .fresh(let response) = store.lookup(
                        CacheFixtures.request(["Accept-Language": language]), now: base)
                else {
                    Issue.record("expected the \(language) variant to hit")
                    continue
                }
                #expect(response.body == Data("in \(language)".utf8))
            }
            #expect(store.lookup(CacheFixtures.request(["Accept-Language": "de"]), now: base) == .miss)
            #expect(store.lookup(CacheFixtures.request(), now: base) == .miss, "no Accept-Language is a value too")
        }
        // An unsafe request removes every variant.
        cache.invalidate(after: CacheFixtures.request(method: "POST"), statusCode: 201, headerFields: [:])
        #expect(cache.lookup(CacheFixtures.request(["Accept-Language": "en"]), now: base) == .miss)
        #expect(cache.lookup(CacheFixtures.request(["Accept-Language": "fr"]), now: base) == .miss)
    }

    @Test("secret query items partition entries and are left out of the stored URL")
    func secretQueryItems() throws {
        let cache = HTTPCache.inMemory()
        func request(_ key: String) -> HTTPCacheRequest {
            HTTPCacheRequest(
                url: URL(string: "https://api.example.com/events?page=1&api_key=\(key)")!,
                secretQueryItemNames: ["api_key"])
        }
        #expect(storeResponse(cache, for: request("k1"), headers: ["Cache-Control": "max-age=60"]))
        #expect(cache.lookup(request("k2"), now: base) == .miss)
        let entry = try #require(cache.storedEntry(for: request("k1")))
        #expect(entry.url == "https://api.example.com/events?page=1")
    }

    @Test("Set-Cookie is never stored, nor answered")
    func setCookieNeverStored() throws {
        let cache = HTTPCache.inMemory()
        let request = CacheFixtures.request()
        #expect(storeResponse(cache, for: request, headers: ["Cache-Control": "max-age=60", "Set-Cookie": "sid=1"]))
        guard case .fresh(let response) = cache.lookup(request, now: base) else {
            Issue.record("expected a hit")
            return
        }
        #expect(response.headerFields["set-cookie"] == nil)
    }

    @Test("a stale entry asks for revalidation; a 304 updates it and it answers fresh with the stored body")
    func revalidation() throws {
        let cache = HTTPCache.inMemory()
        let request = CacheFixtures.request()
        #expect(storeResponse(cache, for: request, headers: ["Cache-Control": "max-age=60", "ETag": "\"7\""]))
        let later = base.addingTimeInterval(120)
        guard case .revalidate(_, let conditions) = cache.lookup(request, now: later) else {
            Issue.record("expected a revalidation")
            return
        }
        #expect(conditions == ["If-None-Match": "\"7\""])
        let answer = try #require(
            cache.revalidated(
                request, notModifiedHeaderFields: ["ETag": "\"7\"", "Date": CacheFixtures.httpDate(later)],
                requestTime: later, responseTime: later))
        #expect(answer.statusCode == 200)
        #expect(answer.body == Data("events".utf8))
        #expect(cache.lookup(request, now: later.addingTimeInterval(1)) != .miss)
        guard case .fresh = cache.lookup(request, now: later.addingTimeInterval(1)) else {
            Issue.record("expected fresh after the 304")
            return
        }
    }

    @Test("offline first answers a failure however stale, marked stale; use-cache does not without stale-if-error")
    func offlineFirst() throws {
        let cache = HTTPCache.inMemory()
        let request = CacheFixtures.request()
        #expect(storeResponse(cache, for: request, headers: ["Cache-Control": "max-age=60"]))
        let muchLater = base.addingTimeInterval(86_400 * 30)
        let answer = try #require(cache.fallback(for: request, policy: .offlineFirst, now: muchLater))
        #expect(answer.isStale)
        #expect(answer.body == Data("events".utf8))
        #expect(cache.fallback(for: request, policy: .useCache, now: muchLater) == nil)
        #expect(cache.fallback(for: request, policy: .networkOnly, now: base) == nil)
    }

    @Test("a POST answered 201 removes the stored GET of its URL, for every partition")
    func unsafeMethodInvalidates() {
        let cache = HTTPCache.inMemory()
        let anonymous = CacheFixtures.request()
        let alice = CacheFixtures.request(["Authorization": "Bearer alice"])
        #expect(storeResponse(cache, for: anonymous, headers: ["Cache-Control": "max-age=60"]))
        #expect(storeResponse(cache, for: alice, headers: ["Cache-Control": "max-age=60"]))
        cache.invalidate(after: CacheFixtures.request(method: "POST"), statusCode: 201, headerFields: [:])
        #expect(cache.lookup(anonymous, now: base) == .miss)
        #expect(cache.lookup(alice, now: base) == .miss)
    }

    @Test("the memory store evicts the least recently used entry past its bound")
    func memoryLRU() {
        let one = HTTPCacheEntry.sample(url: "https://a.example/1", bodySize: 400)
        let store = MemoryHTTPCacheStore(maximumBytes: 3 * one.cost)
        for index in 1...3 {
            store.store(HTTPCacheEntry.sample(url: "https://a.example/\(index)", bodySize: 400), forKey: "k\(index)")
        }
        _ = store.entry(forKey: "k1")
        store.store(HTTPCacheEntry.sample(url: "https://a.example/4", bodySize: 400), forKey: "k4")
        #expect(store.entry(forKey: "k1") != nil)
        #expect(store.entry(forKey: "k2") == nil)
        #expect(store.entry(forKey: "k3") != nil)
        #expect(store.totalBytes <= 3 * one.cost)
    }
}

extension HTTPCacheEntry {
    /// A stored 200 for `url` with a body of `bodySize` bytes, keyed as the cache keys it.
    static func sample(url: String, bodySize: Int, byte: UInt8 = 0x61) -> HTTPCacheEntry {
        HTTPCacheEntry(
            url: url, method: "GET", status: 200, headers: ["cache-control": "max-age=60", "etag": "\"e\""],
            requestTime: CacheFixtures.base, responseTime: CacheFixtures.base, vary: [], partition: "",
            body: Data(repeating: byte, count: bodySize))
    }

    var key: String { HTTPCacheRules.key(storedURL: url, partition: partition) }
}
