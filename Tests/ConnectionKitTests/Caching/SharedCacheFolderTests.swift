import ConnectionKit
import Foundation
import Testing

@Suite("HTTP cache folder shared by two processes", .offThePool, .timeLimit(.minutes(3)))
struct SharedCacheFolderTests {
    /// The test side of `ChildProcessHelper share-http-cache`: the same loop, another fill byte.
    static func run(folder: URL, fill: UInt8, count: Int, log: CacheLog) -> Int {
        guard let cache = try? HTTPCache(folder: folder, maximumBytes: 8 << 20, log: log.append) else { return -1 }
        let request = HTTPCacheRequest(url: URL(string: "https://shared.example/feed")!)
        var torn = 0
        for index in 0..<count {
            let length = 1_000 + (index * 7_919) % 60_000
            let now = Date()
            cache.store(
                statusCode: 200,
                headerFields: ["Cache-Control": "max-age=600", "X-Fill": "\(fill)", "X-Length": "\(length)"],
                body: Data(repeating: fill, count: length), for: request, requestTime: now, responseTime: now)
            guard case .fresh(let response) = cache.lookup(request) else { continue }
            let whole =
                response.body.count == Int(response.headerFields["x-length"] ?? "")
                && response.body.allSatisfy { $0 == UInt8(response.headerFields["x-fill"] ?? "") }
            if !whole { torn += 1 }
        }
        return torn
    }

    @Test("two processes writing and reading one entry never see a torn or damaged entry, and leave no temp file")
    func twoProcessesShareOneFolder() async throws {
        let folder = CacheFixtures.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        _ = try HTTPCache(folder: folder, log: { _ in })
        let child = try ChildProcess(["share-http-cache", folder.path, "98", "250"])
        await child.waitForLine("READY", timeout: 30)
        child.send("go")
        let log = CacheLog()
        // Seconds of synced writes and byte checks: on a thread of its own, not the test's pool thread (see
        // `onOwnThread`).
        let torn = await onOwnThread { Self.run(folder: folder, fill: 97, count: 250, log: log) }
        let result = await child.finish(timeout: 120)
        #expect(result.status == 0)
        #expect(result.printed.contains("DONE 0"), "\(result.printed)")
        #expect(!result.printed.contains("LOG "), "\(result.printed)")
        #expect(torn == 0)
        #expect(log.all.isEmpty, "\(log.all)")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        #expect(names.count == 1, "\(names)")
    }

    @Test("an entry another process wrote after this one opened the folder is a hit here, with that process's body")
    func otherProcessWriteIsAHit() async throws {
        let folder = CacheFixtures.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // Opened on an empty folder: the entry can only come from the other process.
        let cache = try HTTPCache(folder: folder, maximumBytes: 8 << 20, log: { _ in })
        let request = HTTPCacheRequest(url: URL(string: "https://shared.example/feed")!)
        guard case .miss = cache.lookup(request) else {
            Issue.record("an empty folder answered")
            return
        }
        let child = try ChildProcess(["share-http-cache", folder.path, "98", "1"])
        await child.waitForLine("READY", timeout: 30)
        child.send("go")
        let result = await child.finish(timeout: 60)
        #expect(result.status == 0)
        #expect(result.printed.contains("DONE 0"), "\(result.printed)")
        guard case .fresh(let response) = cache.lookup(request) else {
            Issue.record("the other process's entry is not a fresh hit: \(cache.lookup(request))")
            return
        }
        #expect(response.headerFields["x-fill"] == "98")
        #expect(response.body.count == Int(response.headerFields["x-length"] ?? ""))
        #expect(response.body.allSatisfy { $0 == 98 })
    }

    @Test(
        "opening a folder while another writer renames and removes files in it never fails: a file gone since the listing is skipped"
    )
    func openingBesideAWriterSucceeds() throws {
        let folder = CacheFixtures.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        _ = try HTTPCache(folder: folder, log: { _ in })
        let stop = Locked(false)
        // What another process's writes and evictions do to the folder: names appear, are renamed, vanish.
        let writer = Thread {
            var index = 0
            while !stop.withLock({ $0 }) {
                let temporary = folder.appendingPathComponent(".tmp-\(index)")
                let entry = folder.appendingPathComponent(String(format: "%032x-%016x.entry", index, index))
                _ = FileManager.default.createFile(
                    atPath: temporary.path, contents: Data("x".utf8), attributes: [.posixPermissions: 0o600])
                rename(temporary.path, entry.path)
                unlink(entry.path)
                index += 1
            }
        }
        writer.start()
        defer { stop.withLock { $0 = true } }
        var failures: [String] = []
        for _ in 0..<2_000 {
            do {
                _ = try HTTPCache(folder: folder, log: { _ in })
            } catch {
                failures.append("\(error)")
            }
        }
        #expect(failures.isEmpty, "\(failures.count) of 2,000 opens failed, e.g. \(failures.first ?? "")")
    }
}
