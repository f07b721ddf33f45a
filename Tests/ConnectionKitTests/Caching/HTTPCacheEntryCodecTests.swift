import Foundation
import Testing

@testable import ConnectionKit

@Suite("HTTP cache entry format", .offThePool, .timeLimit(.minutes(1)))
struct HTTPCacheEntryCodecTests {
    @Test("an entry decodes to itself; every shorter prefix and every single flipped bit is refused")
    func tornAndFlippedRefused() throws {
        let entry = HTTPCacheEntry.sample(url: "https://a.example/x", bodySize: 40)
        let data = try entry.encoded()
        #expect(try HTTPCacheEntry.decode(data) == entry)
        for length in 0..<data.count {
            #expect(throws: HTTPCacheEntry.DamagedError.self) { try HTTPCacheEntry.decode(data.prefix(length)) }
        }
        for bit in stride(from: 0, to: data.count * 8, by: 7) {
            var flipped = data
            flipped[bit / 8] ^= UInt8(1 << (bit % 8))
            #expect(throws: HTTPCacheEntry.DamagedError.self) { try HTTPCacheEntry.decode(flipped) }
        }
    }

    @Test("a whole, checksummed entry with an out-of-range field is still refused")
    func rangeChecked() throws {
        var entries: [HTTPCacheEntry] = []
        var entry = HTTPCacheEntry.sample(url: "https://a.example/x", bodySize: 4)
        entry.status = 99
        entries.append(entry)
        entry = .sample(url: "https://a.example/x", bodySize: 4)
        entry.method = "POST"
        entries.append(entry)
        entry = .sample(url: "https://a.example/x", bodySize: 4)
        entry.headers["x-injected"] = "a\r\nSet-Cookie: evil=1"
        entries.append(entry)
        entry = .sample(url: "https://a.example/x", bodySize: 4)
        entry.headers["set-cookie"] = "sid=1"
        entries.append(entry)
        entry = .sample(url: "https://a.example/x", bodySize: 4)
        entry.partition = "not-a-digest"
        entries.append(entry)
        entry = .sample(url: "https://a.example/x", bodySize: 4)
        entry.responseTime = Date(timeIntervalSince1970: 1e15)
        entries.append(entry)
        for bad in entries {
            #expect(throws: HTTPCacheEntry.DamagedError.self) { try HTTPCacheEntry.decode(bad.encoded()) }
        }
    }

    @Test("a header length far beyond the file is refused without allocating it")
    func hostileLengths() {
        var bytes = Data("CKHC".utf8) + Data([1, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF])
        bytes.append(Data(repeating: 0, count: 8))
        #expect(throws: HTTPCacheEntry.DamagedError.self) { try HTTPCacheEntry.decode(bytes) }
        #expect(throws: HTTPCacheEntry.DamagedError.self) { try HTTPCacheEntry.decode(Data()) }
    }

    @Test("the fuzz seeds, written by another program from the documented layout, decode")
    func seedsDecode() throws {
        let seeds = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "../../../Fuzz/Corpus/http-cache-entry"
        ).standardizedFileURL
        for name in ["fresh-etag", "vary-partition", "expires-duplicates"] {
            let entry = try HTTPCacheEntry.decode(Data(contentsOf: seeds.appendingPathComponent(name)))
            #expect(entry.url == "https://api.example.com/events?page=1")
        }
    }
}
