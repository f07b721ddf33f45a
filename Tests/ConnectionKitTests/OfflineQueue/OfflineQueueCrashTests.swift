import ConnectionKit
import ConnectionKitTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The crash helper's `CrashWrite`, as this process defines it: registered under the stored name.
final class DrainWrite: ConnectionRequest<Data>, @unchecked Sendable {
    // Safe: immutable stored properties only.
    let base: URL

    init(base: URL) {
        self.base = base
        super.init()
    }

    /// The helper's origin: the queue applies the credentials only to operations for it.
    override var url: URL? { base.appendingPathComponent("writes") }
    override var requestHeaderFields: [String: String] { ["Cookie": "session=crash-cookie"] }
    override var authorization: Authorization? { .bearer("crash-secret-token") }
    /// Thousands of deliveries: on a client of their own, so that they do not push other tests' runs out of
    /// the shared client's history (1,000 runs).
    override var client: ConnectionClient { Self.ownClient }
    static let ownClient = ConnectionClient.ownForTests(label: "offline-crash-drain")
}

@Suite("OfflineQueue crash safety", .offThePool, .exclusive, .timeLimit(.minutes(20)))
struct OfflineQueueCrashTests {
    static let writes = 1000

    /// Where `swift build` / `swift test` put the helper: beside the test bundle.
    static func helperURL() -> URL? { BuiltExecutable.url(named: "OfflineQueueCrashHelper") }

    /// How long one helper run may take to print what a round waits for, and to exit.
    static let helperDeadline: TimeInterval = 60

    /// Runs the helper; with `killAfterLines`, kills it with SIGKILL once it printed `READY` (its queue is
    /// open) and that many lines after it, otherwise lets it finish. Records an issue when the child was not
    /// ended by that kill: when it died of something else, and, unless `mayFinishFirst`, when it finished
    /// first. Returns everything it printed.
    static func runHelper(
        _ arguments: [String], killAfterLines: Int?, mayFinishFirst: Bool = false
    ) async throws -> Data {
        let helper = try #require(helperURL(), "OfflineQueueCrashHelper was not built beside the tests")
        let process = Subprocess()
        process.executableURL = helper
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        // Every read has a deadline: a stalled helper (a deadlocked enqueue, what these rounds look for)
        // fails its round after `helperDeadline` seconds instead of hanging every round after it.
        let collected = ProcessOutput()
        collected.collect(pipe, of: process)
        try process.run()
        try? pipe.fileHandleForWriting.close()
        var killed = false
        if let killAfterLines {
            // `READY` is a line of its own, so the kill comes after `killAfterLines + 1` lines.
            let reached = await collected.waited(timeout: helperDeadline) {
                lines(in: Data($0.utf8)).count >= killAfterLines + 1
            }
            #expect(
                reached.done || !process.isRunning,
                "the helper printed \(lines(in: Data(reached.printed.utf8)).count) lines in \(helperDeadline) s")
            // A helper seen to finish is left to exit by itself, so that its exit status is checked.
            if lines(in: Data(reached.printed.utf8)).last != "DONE" {
                kill(process.processIdentifier, SIGKILL)
                killed = true
            }
        }
        // Returns when the helper exited or at the deadline.
        _ = await collected.waited(timeout: helperDeadline) { _ in false }
        if process.isRunning {
            Issue.record("the helper did not exit within \(helperDeadline) s; killed")
            kill(process.processIdentifier, SIGKILL)
        }
        process.waitUntilExit()
        let output = Data(collected.finish().utf8)
        let printed = lines(in: output)
        #expect(printed.first == "READY", "the helper did not open its queue: \(printed.prefix(3))")
        if killAfterLines != nil, mayFinishFirst, printed.last == "DONE" {
            // It finished; a kill sent just before it printed `DONE` may still have ended it while it exited.
            let exited = process.terminationReason == .exit && process.terminationStatus == 0
            let killedAfterDone =
                killed && process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGKILL
            #expect(
                exited || killedAfterDone,
                "the helper ended by \(process.terminationReason) \(process.terminationStatus)")
        } else if killAfterLines != nil {
            #expect(!printed.contains("DONE"), "the helper finished before the kill: the round tested no crash")
            #expect(
                process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGKILL,
                "the helper ended by \(process.terminationReason) \(process.terminationStatus), not by the SIGKILL")
        } else {
            #expect(process.terminationReason == .exit && process.terminationStatus == 0)
        }
        return output
    }

    /// The complete lines of `output` (a line cut by the kill is not one).
    static func lines(in output: Data) -> [String] {
        var lines = String(decoding: output, as: UTF8.self).components(separatedBy: "\n")
        lines.removeLast()
        return lines
    }

    /// The `<index> <key>` lines of the enqueueing helper, by key. Only complete lines count: a line cut by the
    /// kill was never acknowledged to anyone.
    static func acknowledgements(in output: Data) -> [String: Int] {
        var acknowledged: [String: Int] = [:]
        for line in lines(in: output) where line != "DONE" && line != "READY" {
            let parts = line.split(separator: " ")
            guard parts.count == 2, let index = Int(parts[0]) else {
                Issue.record("unexpected helper output line: \(line)")
                continue
            }
            acknowledged[String(parts[1])] = index
        }
        return acknowledged
    }

    @Test(
        "a process killed with SIGKILL while delivering loses nothing; the next one delivers the rest with the same keys",
        arguments: 0..<2)
    func killWhileDeliveringThenFinish(round: Int) async throws {
        let writes = 300
        let reservation = try PortReservation()
        let directory = OfflineFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let acknowledged = Self.acknowledgements(
            in: try await Self.runHelper(
                ["enqueue", directory.path, reservation.baseURL.absoluteString, String(writes)],
                killAfterLines: nil))
        #expect(acknowledged.count == writes)

        let server = TestServer()
        defer { server.stop() }
        server.route("POST", "/writes") { _ in .text("ok") }
        try reservation.startServer(server)
        // A child drains, and is killed after `killAfter` deliveries (mid-attempt, mid-delete: wherever it is).
        let killAfter = round == 0 ? Int.random(in: 1..<20) : Int.random(in: 20..<(writes - 20))
        let drained = try await Self.runHelper(
            ["drain", directory.path, reservation.baseURL.absoluteString], killAfterLines: killAfter)
        let deliveredByChild = String(decoding: drained, as: UTF8.self).components(separatedBy: "\n")
            .filter { $0.hasPrefix("DELIVERED ") }.count
        #expect(deliveredByChild >= killAfter)

        let queue = try OfflineQueue(directory: directory, configuration: OfflineFixtures.configuration())
        defer { queue.close() }
        let delivered = Collector<QueuedOperation>()
        queue.deliveredHandler = { operation, _ in delivered.append(operation) }
        let remaining = queue.pending.count
        #expect(remaining <= writes - deliveredByChild)
        queue.register(typeName: "CrashWrite") { DrainWrite(base: reservation.baseURL) }
        await delivered.wait(for: remaining, timeout: 180)

        let received = server.receivedRequests("/writes")
        let keys = received.map { $0.header("Idempotency-Key") ?? "(none)" }
        #expect(Set(keys) == Set(acknowledged.keys))
        for request in received {
            let index = acknowledged[request.header("Idempotency-Key") ?? ""]
            #expect(request.bodyString == index.map { "write-\($0)" })
        }
        // At least once: a write in flight at the kill may arrive twice, never more than that one.
        #expect(keys.count - Set(keys).count <= 1)
        #expect(queue.pending.isEmpty)
        #expect(queue.deadLetters.isEmpty)
    }

    @Test(
        "a process killed with SIGKILL while enqueueing loses no acknowledged write; the next one delivers each",
        arguments: 0..<4)
    func killWhileEnqueueingThenDrain(round: Int) async throws {
        let killPoints = [
            0, Int.random(in: 1..<100), Int.random(in: 100..<600), Int.random(in: 600..<(Self.writes - 200)),
        ]
        let killAfter = killPoints[round]
        let reservation = try PortReservation()
        let directory = OfflineFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }

        // 1. The child enqueues against the down server and is killed after `killAfter` acknowledgements.
        let output = try await Self.runHelper(
            ["enqueue", directory.path, reservation.baseURL.absoluteString, String(Self.writes)],
            killAfterLines: killAfter)

        let acknowledged = Self.acknowledgements(in: output)
        #expect(acknowledged.count >= min(killAfter, Self.writes))
        #expect(Set(acknowledged.values) == Set(0..<acknowledged.count))

        // 2. Nothing secret reached the disk, and every file is private.
        let files = OfflineFixtures.files(in: directory)
        #expect(acknowledged.isEmpty || !files.isEmpty, "\(acknowledged.count) writes acknowledged, no file on disk")
        for file in files {
            let bytes = try Data(contentsOf: file)
            #expect(bytes.range(of: Data("crash-secret-token".utf8)) == nil, "secret in \(file.path)")
            #expect(bytes.range(of: Data("crash-cookie".utf8)) == nil, "cookie in \(file.path)")
            let mode = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int
            #expect(mode == 0o600, "\(file.path) has mode \(String(mode ?? 0, radix: 8))")
        }

        // 3. This process opens the same directory and drains it to the server, now up on the same port.
        let opened = try ReopenedQueue(directory, serving: "/writes", on: reservation)
        defer { opened.close() }
        let (server, queue, log, delivered) = (opened.server, opened.queue, opened.log, opened.delivered)
        // Nothing is sent before the class is registered, so every delivery is seen by the handler.
        let stored = queue.pending
        #expect(stored.count >= acknowledged.count)
        #expect(stored.count <= acknowledged.count + 1)
        queue.register(typeName: "CrashWrite") { DrainWrite(base: reservation.baseURL) }
        await delivered.wait(for: stored.count, timeout: 180)

        // 4. Every acknowledged write arrived with its key; the server saw no key it was not given.
        let received = server.receivedRequests("/writes")
        var firstArrivals: [Int] = []
        var seenKeys = Set<String>()
        var unacknowledgedKeys = Set<String>()
        for request in received {
            let key = request.header("Idempotency-Key") ?? "(none)"
            let body = request.bodyString ?? ""
            #expect(request.header("Authorization") == "Bearer crash-secret-token")
            #expect(request.header("Cookie") == "session=crash-cookie")
            if let index = acknowledged[key] {
                #expect(body == "write-\(index)")
            } else {
                // Only the write being enqueued at the kill may be on disk without an acknowledgement.
                #expect(body == "write-\(acknowledged.count)", "key \(key) was never given (body \(body))")
                unacknowledgedKeys.insert(key)
            }
            if seenKeys.insert(key).inserted, let index = Int(body.dropFirst("write-".count)) {
                firstArrivals.append(index)
            }
        }
        #expect(Set(acknowledged.keys).isSubset(of: seenKeys))
        #expect(unacknowledgedKeys.count <= 1)
        #expect(firstArrivals == firstArrivals.sorted(), "delivered out of order")
        #expect(queue.pending.isEmpty)
        #expect(queue.deadLetters.isEmpty)
        #expect(!log.all.contains { $0.contains("corrupt") }, "\(log.all)")
    }
}
