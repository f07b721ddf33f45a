import Foundation
import Testing

@testable import ConnectionKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Collects a store's log lines.
final class CacheLog: @unchecked Sendable {
    // Safe: `lines` is only reached under `lock`.
    private var lines: [String] = []
    private let lock = NSLock()

    var all: [String] {
        lock.withLock { lines }
    }

    func append(_ line: String) {
        lock.withLock { lines.append(line) }
    }
}

@Suite("HTTP cache on disk: trust, damage, eviction, two writers", .offThePool, .timeLimit(.minutes(2)))
struct DiskHTTPCacheStoreTests {
    static func mode(_ url: URL) -> Int {
        var info = stat()
        guard lstat(url.path, &info) == 0 else { return -1 }
        return Int(info.st_mode & 0o7777)
    }

    @Test("an entry round-trips through its file; the folder is 0700 and the file 0600")
    func roundTrip() throws {
        let folder = CacheFixtures.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = try DiskHTTPCacheStore(folder: folder, maximumBytes: 1 << 20, log: { _ in })
        let entry = HTTPCacheEntry.sample(url: "https://a.example/x", bodySize: 1000)
        store.store(entry, forKey: entry.key)
        #expect(store.entry(forKey: entry.key) == entry)
        #expect(Self.mode(folder) == 0o700)
        #expect(Self.mode(folder.appendingPathComponent(entry.key + ".entry")) == 0o600)
        let reopened = try DiskHTTPCacheStore(folder: folder, maximumBytes: 1 << 20, log: { _ in })
        #expect(reopened.entry(forKey: entry.key) == entry)
        #expect(reopened.totalBytes > 1000)
    }

    @Test("a folder others can write is refused; so is an entry that is a symbolic link")
    func trust() throws {
        let folder = CacheFixtures.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        chmod(folder.path, 0o777)
        #expect(throws: ConnectionError.self) {
            try DiskHTTPCacheStore(folder: folder, maximumBytes: 1 << 20, log: { _ in })
        }
        chmod(folder.path, 0o700)
        let entry = HTTPCacheEntry.sample(url: "https://a.example/x", bodySize: 10)
        let secret = folder.appendingPathComponent("elsewhere")
        try Data("not yours".utf8).write(to: secret)
        try FileManager.default.createSymbolicLink(
            atPath: folder.appendingPathComponent(entry.key + ".entry").path, withDestinationPath: secret.path)
        #expect(throws: ConnectionError.self) {
            try DiskHTTPCacheStore(folder: folder, maximumBytes: 1 << 20, log: { _ in })
        }
    }

    @Test("a link put in place after opening is dropped and logged, never followed")
    func linkAfterOpen() throws {
        let folder = CacheFixtures.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let log = CacheLog()
        let store = try DiskHTTPCacheStore(folder: folder, maximumBytes: 1 << 20, log: log.append)
        let entry = HTTPCacheEntry.sample(url: "https://a.example/x", bodySize: 10)
        let target = FileManager.default.temporaryDirectory.appendingPathComponent("ck-target-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: target) }
        try entry.encoded().write(to: target)
        try FileManager.default.createSymbolicLink(
            atPath: folder.appendingPathComponent(entry.key + ".entry").path, withDestinationPath: target.path)
        #expect(store.entry(forKey: entry.key) == nil)
        #expect(log.all.count == 1)
        #expect(FileManager.default.fileExists(atPath: target.path))
    }

    @Test("a flipped byte, a torn file and an entry under another's name are dropped and logged, never served")
    func damagedEntriesDropped() throws {
        let folder = CacheFixtures.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let log = CacheLog()
        let store = try DiskHTTPCacheStore(folder: folder, maximumBytes: 1 << 20, log: log.append)
        let entries = (0..<3).map { HTTPCacheEntry.sample(url: "https://a.example/\($0)", bodySize: 500) }
        for entry in entries { store.store(entry, forKey: entry.key) }
        let file = { (entry: HTTPCacheEntry) in folder.appendingPathComponent(entry.key + ".entry") }
        var flipped = try Data(contentsOf: file(entries[0]))
        flipped[flipped.count / 2] ^= 0x01
        try flipped.write(to: file(entries[0]))
        let whole = try Data(contentsOf: file(entries[1]))
        try whole.prefix(300).write(to: file(entries[1]))
        try whole.write(to: file(entries[2]))
        for entry in entries { #expect(store.entry(forKey: entry.key) == nil) }
        #expect(log.all.count == 3, "\(log.all)")
        for entry in entries { #expect(!FileManager.default.fileExists(atPath: file(entry).path)) }
    }

    @Test("the least recently used entry is evicted past the size bound")
    func lruEviction() throws {
        let folder = CacheFixtures.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let entries = (0..<4).map { HTTPCacheEntry.sample(url: "https://a.example/\($0)", bodySize: 10_000) }
        let size = try entries[0].encoded().count
        let store = try DiskHTTPCacheStore(folder: folder, maximumBytes: 3 * size + 10, log: { _ in })
        for entry in entries.prefix(3) { store.store(entry, forKey: entry.key) }
        #expect(store.entry(forKey: entries[0].key) != nil)
        store.store(entries[3], forKey: entries[3].key)
        #expect(store.entry(forKey: entries[0].key) != nil)
        #expect(store.entry(forKey: entries[1].key) == nil)
        #expect(store.entry(forKey: entries[2].key) != nil)
        #expect(store.entry(forKey: entries[3].key) != nil)
        #expect(store.totalBytes <= 3 * size + 10)
    }

    @Test("credentials never reach the disk: not the Authorization value, not a secret query item")
    func noCredentialsOnDisk() throws {
        let folder = CacheFixtures.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let cache = try HTTPCache(folder: folder, log: { _ in })
        let request = HTTPCacheRequest(
            url: URL(string: "https://api.example.com/me?api_key=QUERYSECRET")!,
            headerFields: ["Authorization": "Bearer HEADERSECRET", "Accept": "application/json"],
            secretQueryItemNames: ["api_key"])
        #expect(
            cache.store(
                statusCode: 200,
                headerFields: ["Cache-Control": "private, max-age=60", "Vary": "Authorization, Accept"],
                body: Data("me".utf8), for: request, requestTime: CacheFixtures.base, responseTime: CacheFixtures.base))
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        // The entry, under its URL and under its variant's key (it varies): two files, neither with a secret.
        #expect(names.count == 2)
        for name in names {
            let text = String(decoding: try Data(contentsOf: folder.appendingPathComponent(name)), as: UTF8.self)
            #expect(!text.contains("HEADERSECRET"))
            #expect(!text.contains("QUERYSECRET"))
            #expect(text.contains("application"))
        }
        guard case .fresh = cache.lookup(request, now: CacheFixtures.base) else {
            Issue.record("expected the owner's own hit")
            return
        }
    }
}
