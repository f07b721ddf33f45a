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

/// The queue folder is a trust boundary: what another user or process planted there must not be followed,
/// trusted with credentials, or allowed to trap the app.
@Suite("OfflineQueue trust in its folder", .offThePool, .exclusive, .timeLimit(.minutes(10)))
struct OfflineTrustTests {
    /// Opening `directory` fails; returns the error's description for the caller to check.
    static func refusal(
        _ directory: URL, sourceLocation: SourceLocation = #_sourceLocation
    ) -> String {
        do {
            let queue = try OfflineQueue(
                directory: directory, configuration: OfflineFixtures.configuration(offline: 60))
            queue.close()
            Issue.record("the queue in \(directory.path) was opened", sourceLocation: sourceLocation)
            return ""
        } catch {
            guard let error = error as? ConnectionError, error.kind == .fileSystem,
                let underlying = error.underlyingError
            else {
                Issue.record("not a ConnectionError.fileSystem: \(error)", sourceLocation: sourceLocation)
                return ""
            }
            #expect(
                underlying is OfflineQueueError, "underlying error is \(type(of: underlying))",
                sourceLocation: sourceLocation)
            return "\(error)"
        }
    }

    /// Writes `entry` (a `QueuedOperation` as JSON, edited by the caller) where the queue's version 1 kept
    /// one entry per file, `pending/<sequence>.json`: what an attacker who can write the folder plants.
    static func plant(_ entry: [String: Any], sequence: UInt64, in directory: URL) throws {
        let file = directory.appendingPathComponent("pending")
            .appendingPathComponent(OfflineFixtures.entryFileName(sequence: sequence))
        try JSONSerialization.data(withJSONObject: entry).write(to: file)
        chmod(file.path, 0o600)
    }

    @Test("a queue folder that is group- or world-writable is refused, naming the problem", arguments: [0o770, 0o703])
    func writableFolderIsRefused(mode: Int) throws {
        let directory = OfflineFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false)
        chmod(directory.path, mode_t(mode))
        #expect(Self.refusal(directory).contains("writable"))
    }

    @Test("a subfolder of the queue that is world-writable is refused")
    func writableSubfolderIsRefused() throws {
        let directory = OfflineFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        _ = try OfflineFixtures.enqueueOne(SecretWrite(base: URL(fileURLWithPath: "/")), in: directory)
        chmod(directory.appendingPathComponent("pending").path, 0o777)
        #expect(Self.refusal(directory).contains("writable"))
    }

    @Test("a queue folder that is a symbolic link is refused")
    func symlinkedFolderIsRefused() throws {
        let target = OfflineFixtures.temporaryDirectory()
        let link = OfflineFixtures.temporaryDirectory()
        defer {
            try? FileManager.default.removeItem(at: link)
            try? FileManager.default.removeItem(at: target)
        }
        try FileManager.default.createDirectory(at: target, withIntermediateDirectories: false)
        chmod(target.path, 0o700)
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)
        #expect(Self.refusal(link).contains("symbolic link"))
    }

    @Test("a pending entry that is a symbolic link is refused, and its target is left alone")
    func symlinkedEntryIsRefused() throws {
        let directory = OfflineFixtures.temporaryDirectory()
        let outside = OfflineFixtures.temporaryDirectory()
        defer {
            try? FileManager.default.removeItem(at: directory)
            try? FileManager.default.removeItem(at: outside)
        }
        let operation = try OfflineFixtures.enqueueOne(SecretWrite(base: URL(fileURLWithPath: "/")), in: directory)
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: false)
        var entry = try OfflineFixtures.storedJSON(operation)
        entry["sequence"] = 7
        entry["id"] = UUID().uuidString
        let target = outside.appendingPathComponent("entry.json")
        try JSONSerialization.data(withJSONObject: entry).write(to: target)
        try FileManager.default.createSymbolicLink(
            at: directory.appendingPathComponent("pending").appendingPathComponent("00000000000000000007.json"),
            withDestinationURL: target)
        #expect(Self.refusal(directory).contains("symbolic link"))
        #expect(FileManager.default.fileExists(atPath: target.path))
    }

    @Test("a queue folder owned by another user is refused", .enabled(if: geteuid() == 0, "needs root to chown"))
    func foreignOwnerIsRefused() throws {
        let directory = OfflineFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false)
        chmod(directory.path, 0o700)
        #expect(chown(directory.path, 65534, 65534) == 0)
        #expect(Self.refusal(directory).contains("owned by"))
    }

    @Test("a planted entry for a registered class is not sent to another origin with the class's credentials")
    func credentialsStayWithTheClassOrigin() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("PUT", "/secret-writes") { _ in .text("stored") }
        let attacker = try TestServer.started()
        defer { attacker.stop() }
        attacker.route("PUT", "/secret-writes") { _ in .text("thanks") }
        let directory = OfflineFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let genuine = try OfflineFixtures.enqueueOne(SecretWrite(base: server.baseURL), in: directory)
        var entry = try OfflineFixtures.storedJSON(genuine)
        entry["url"] = attacker.url("/secret-writes?page=1").absoluteString
        entry["sequence"] = 2
        entry["id"] = UUID().uuidString
        entry["idempotencyKey"] = "planted-key"
        try Self.plant(entry, sequence: 2, in: directory)
        // A later genuine write: once it is delivered, the planted one (before it in order) was dealt with.
        _ = try OfflineFixtures.enqueueOne(SecretWrite(base: server.baseURL, body: Data("last".utf8)), in: directory)

        let queue = try OfflineQueue(directory: directory, configuration: OfflineFixtures.configuration())
        defer { queue.close() }
        let delivered = Collector<QueuedOperation>()
        queue.deliveredHandler = { operation, _ in delivered.append(operation) }
        let dead = Collector<DeadLetter>()
        queue.deadLetterHandler = { letter in dead.append(letter) }
        queue.register(SecretWrite.self) { SecretWrite(base: server.baseURL) }
        await delivered.wait(for: 2)
        await dead.wait(for: 1)

        #expect(server.receivedRequests("/secret-writes").count == 2)
        for request in attacker.receivedRequests("/secret-writes") {
            #expect(request.header("Authorization") == nil)
            #expect(request.header("X-Api-Key") == nil)
            #expect(request.header("Cookie") == nil)
            #expect(request.queryItems["api_token"] == nil)
        }
        #expect(dead.all.first?.operation.idempotencyKey == "planted-key")
        #expect(dead.all.first?.reason.contains("origin") == true, "\(dead.all.first?.reason ?? "")")
    }

    @Test("a body file name with a path in it is refused: nothing outside the folder is sent or deleted")
    func bodyFileOutsideTheFolderIsRefused() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("PUT", "/secret-writes") { _ in .text("stored") }
        let directory = OfflineFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let victim = directory.deletingLastPathComponent().appendingPathComponent("victim-\(UUID().uuidString).txt")
        defer { try? FileManager.default.removeItem(at: victim) }
        try Data("the victim's private file".utf8).write(to: victim)
        let genuine = try OfflineFixtures.enqueueOne(SecretWrite(base: server.baseURL), in: directory)
        _ = try OfflineFixtures.enqueueOne(SecretWrite(base: server.baseURL, body: Data("last".utf8)), in: directory)

        for (sequence, name) in [(10, "../../\(victim.lastPathComponent)"), (11, victim.path), (12, "..")] {
            var entry = try OfflineFixtures.storedJSON(genuine)
            entry["sequence"] = sequence
            entry["id"] = UUID().uuidString
            entry["idempotencyKey"] = "planted-\(sequence)"
            entry["inlineBody"] = nil
            entry["bodyFileName"] = name
            entry["bodyLength"] = 25
            try Self.plant(entry, sequence: UInt64(sequence), in: directory)
        }
        let log = Collector<String>()
        let queue = try OfflineQueue(directory: directory, configuration: OfflineFixtures.configuration(log: log))
        defer { queue.close() }
        let delivered = Collector<QueuedOperation>()
        queue.deliveredHandler = { operation, _ in delivered.append(operation) }
        queue.register(SecretWrite.self) { SecretWrite(base: server.baseURL) }
        await delivered.wait(for: 2)

        #expect(FileManager.default.fileExists(atPath: victim.path), "the victim file was deleted")
        let bodies = server.receivedRequests("/secret-writes").map { $0.bodyString ?? "" }
        #expect(!bodies.contains("the victim's private file"))
        #expect(delivered.all.map(\.idempotencyKey).allSatisfy { !$0.hasPrefix("planted") })
        #expect(log.all.filter { $0.contains("corrupt queue entry") }.count == 3, "\(log.all)")
    }

    @Test(
        "numbers read from disk are range-checked: an out-of-range entry is moved aside, never a trap",
        arguments: [
            ("sequence", "18446744073709551615"), ("sequence", "0"), ("attempts", "9223372036854775807"),
            ("attempts", "-1"), ("bodyLength", "-5"),
        ])
    func outOfRangeNumbersAreRefused(field: String, value: String) async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("PUT", "/secret-writes") { _ in .text("stored") }
        let directory = OfflineFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let genuine = try OfflineFixtures.enqueueOne(SecretWrite(base: server.baseURL), in: directory)
        var entry = try OfflineFixtures.storedJSON(genuine)
        entry["sequence"] = 5
        entry["id"] = UUID().uuidString
        entry["idempotencyKey"] = "planted"
        // JSONSerialization cannot write UInt64.max as a number: splice the digits into the text.
        entry[field] = "NUMBER"
        let text = String(decoding: try JSONSerialization.data(withJSONObject: entry), as: UTF8.self)
            .replacingOccurrences(of: "\"NUMBER\"", with: value)
        let file = directory.appendingPathComponent("pending").appendingPathComponent("00000000000000000005.json")
        try Data(text.utf8).write(to: file)

        let log = Collector<String>()
        let queue = try OfflineQueue(directory: directory, configuration: OfflineFixtures.configuration(log: log))
        defer { queue.close() }
        let delivered = Collector<QueuedOperation>()
        queue.deliveredHandler = { operation, _ in delivered.append(operation) }
        // Read before registering: nothing is attempted while its class is unregistered, and once it is the
        // genuine write may be delivered (and leave `pending`) at once.
        #expect(queue.pending.map(\.id) == [genuine.id])
        queue.register(SecretWrite.self) { SecretWrite(base: server.baseURL) }
        await delivered.wait(for: 1)
        #expect(delivered.all.map(\.id) == [genuine.id])
        #expect(log.all.contains { $0.contains("corrupt queue entry") }, "\(log.all)")
        // The next enqueue still gets a sequence after the genuine one.
        queue.suspend()
        let next = try queue.enqueue(SecretWrite(base: server.baseURL))
        #expect(next.sequence > genuine.sequence)
    }
}
