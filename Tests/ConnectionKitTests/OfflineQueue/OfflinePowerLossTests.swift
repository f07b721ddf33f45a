import ConnectionKitTesting
import Foundation
import Testing

@testable import ConnectionKit

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Power loss, simulated: a kill keeps the page cache, so only a model of the disk shows whether the queue
/// syncs what it promises. The workload runs once against a recorder; every prefix of its events is then
/// cut, rebuilt as a power cut may leave it (seeded), opened, and checked against the guide's promises.
@Suite("OfflineQueue power loss", .offThePool, .exclusive, .timeLimit(.minutes(20)))
struct OfflinePowerLossTests {
    /// The workload's writes: `notes/<n>`; every fourth has a body too large to stay inline (a body file).
    static func note(_ n: Int, base: URL) -> PostNote {
        PostNote(base: base, text: n % 4 == 1 ? String(repeating: "b\(n)", count: 80) : "w\(n)", path: "notes/\(n)")
    }

    /// Enqueues, removals, deliveries, rotations (256-byte segments), a close and a reopen, recorded.
    static func runWorkload(in directory: URL, recorder: PowerLossRecorder) async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        for n in 0..<40 {
            server.route("POST", "/notes/\(n)") { _ in
                recorder.mark("received \(n)")
                return .text("ok")
            }
        }
        var configuration = OfflineFixtures.configuration(offline: 60)
        configuration.inlineBodyLimit = 100
        let delivered = Collector<QueuedOperation>()
        func open() throws -> OfflineQueue {
            let queue = try OfflineQueue(
                directory: directory, configuration: configuration, files: recorder, segmentLimit: 256)
            queue.suspend()
            queue.register(PostNote.self) { [base = server.baseURL] in PostNote(base: base, text: "") }
            queue.deliveredHandler = { operation, _ in delivered.append(operation) }
            return queue
        }
        func enqueue(_ range: Range<Int>, to queue: OfflineQueue) throws {
            for n in range {
                recorder.mark("started \(n)")
                try queue.enqueue(note(n, base: server.baseURL))
                recorder.mark("acked \(n)")
            }
        }
        let queue = try open()
        try enqueue(0..<16, to: queue)
        let third = try #require(queue.pending.first { $0.url.lastPathComponent == "3" })
        recorder.mark("removing 3")
        try queue.remove(third)
        recorder.mark("removed 3")
        queue.resume()
        await delivered.wait(for: 15)
        queue.suspend()
        try enqueue(16..<32, to: queue)
        queue.resume()
        await delivered.wait(for: 31)
        queue.close()
        let reopened = try open()
        try enqueue(32..<40, to: reopened)
        reopened.close()
    }

    /// What the marks before a cut say.
    struct Promises {
        var started: [Int] = []
        var acknowledged = Set<Int>()
        var received = Set<Int>()
        var removing = Set<Int>()
        var removed = Set<Int>()

        init(_ events: ArraySlice<PowerLossRecorder.Event>) {
            for case .mark(let label) in events {
                let parts = label.split(separator: " ")
                guard parts.count == 2, let n = Int(parts[1]) else { continue }
                switch parts[0] {
                case "started": started.append(n)
                case "acked": acknowledged.insert(n)
                case "received": received.insert(n)
                case "removing": removing.insert(n)
                case "removed": removed.insert(n)
                default: break
                }
            }
        }

        /// What is wrong with `pending` (the writes found, in delivery order), or `nil`.
        func violation(_ pending: [Int]) -> String? {
            if Set(pending).count != pending.count { return "a write is there twice: \(pending)" }
            if pending != pending.sorted() { return "out of order: \(pending)" }
            let lost = acknowledged.subtracting(received).subtracting(removing).subtracting(pending)
            if !lost.isEmpty { return "acknowledged writes lost: \(lost.sorted()) (found \(pending))" }
            let back = Set(pending).intersection(removed)
            if !back.isEmpty { return "removed writes came back: \(back.sorted())" }
            let unknown = Set(pending).subtracting(acknowledged)
            // Only the enqueue under way at the cut may be there without its acknowledgement.
            if !unknown.isSubset(of: Set(started.suffix(1))) { return "never acknowledged: \(unknown.sorted())" }
            return nil
        }
    }

    /// Cuts the power after each of `events`' prefixes, `seeds` times each; returns the violations.
    static func cutEverywhere(_ events: [PowerLossRecorder.Event], seeds: Range<UInt64>, in scratch: URL) -> [String] {
        var violations: [String] = []
        for cut in 0...events.count {
            let disk = PowerCut(events[0..<cut])
            let promises = Promises(events[0..<cut])
            for seed in seeds {
                var random = SeededGenerator(seed: seed &* 1_000_003 &+ UInt64(cut))
                let folder = scratch.appendingPathComponent("\(cut)-\(seed)")
                defer { try? FileManager.default.removeItem(at: folder) }
                do {
                    try disk.rebuild(into: folder, random: &random)
                    let queue = try OfflineQueue(
                        directory: folder, configuration: OfflineFixtures.configuration(offline: 60))
                    queue.suspend()
                    let pending = queue.pending.map { Int($0.url.lastPathComponent) ?? -1 }
                    queue.close()
                    if let violation = promises.violation(pending) {
                        violations.append("cut after event \(cut) of \(events.count), seed \(seed): \(violation)")
                    }
                } catch {
                    violations.append("cut after event \(cut), seed \(seed): opening failed: \(error)")
                }
            }
        }
        return violations
    }

    @Test("a power cut at any event (synced or not) loses no acknowledged write and opens cleanly")
    func powerCutAnywhere() async throws {
        let directory = OfflineFixtures.temporaryDirectory()
        // Opening a cut folder syncs what it rewrites: on tmpfs, where a sync costs nothing, when there is one.
        let shm = URL(fileURLWithPath: "/dev/shm", isDirectory: true)
        let scratch =
            FileManager.default.isWritableFile(atPath: shm.path)
            ? shm.appendingPathComponent("OfflinePowerLoss-\(UUID().uuidString)") : OfflineFixtures.temporaryDirectory()
        defer {
            try? FileManager.default.removeItem(at: directory)
            try? FileManager.default.removeItem(at: scratch)
        }
        let recorder = PowerLossRecorder(root: directory)
        try await Self.runWorkload(in: directory, recorder: recorder)
        let events = recorder.recorded
        let syncs = events.filter {
            switch $0 {
            case .sync, .syncFolder: return true
            default: return false
            }
        }
        #expect(syncs.count > 50, "the workload synced \(syncs.count) times")
        let seeds: Range<UInt64> = 0..<3
        // Tens of seconds of CPU and file work in a debug build: on a thread of its own, not the test's pool
        // thread (see `onOwnThread`), which the other tests of the parallel run need meanwhile.
        let violations = await onOwnThread { Self.cutEverywhere(events, seeds: seeds, in: scratch) }
        let cuts = (events.count + 1) * seeds.count
        #expect(cuts >= 1000, "\(cuts) cut points")
        let failed = violations.count
        #expect(
            failed == 0, "\(violations.count) of \(cuts) cuts: \(violations.prefix(5).joined(separator: "; "))")
    }

    @Test("after a full disk (ENOSPC) the next enqueue that fits succeeds; nothing acknowledged is lost")
    func fullDiskRecovers() throws {
        let directory = OfflineFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let recorder = PowerLossRecorder(root: directory)
        let base = URL(fileURLWithPath: "/")
        let queue = try OfflineQueue(
            directory: directory, configuration: OfflineFixtures.configuration(offline: 60), files: recorder)
        defer { queue.close() }
        queue.suspend()
        try queue.enqueue(Self.note(0, base: base))
        recorder.failingWrites.withLock { $0 = ENOSPC }
        let full = #expect(throws: ConnectionError.self) { try queue.enqueue(Self.note(1, base: base)) }
        // A queue error reads as one (issue 30: it read "could not save the response").
        let message = full?.errorDescription ?? ""
        #expect(message.hasPrefix("PostNote in the offline queue failed: "), "\(message)")
        #expect(message.contains("No space left on device") && !message.contains("save the response"), "\(message)")
        #expect(throws: ConnectionError.self) { try queue.enqueue(Self.note(2, base: base)) }
        // Space is free again.
        recorder.failingWrites.withLock { $0 = nil }
        try queue.enqueue(Self.note(3, base: base))
        #expect(queue.pending.map(\.url.lastPathComponent) == ["0", "3"])
        queue.close()
        let reopened = try OfflineQueue(directory: directory, configuration: OfflineFixtures.configuration(offline: 60))
        defer { reopened.close() }
        reopened.suspend()
        #expect(reopened.pending.map(\.url.lastPathComponent) == ["0", "3"])
    }
}
