import ConnectionKit
import ConnectionKitTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("OfflineQueue corrupt entries", .offThePool, .exclusive, .timeLimit(.minutes(10)))
struct OfflineCorruptionTests {
    /// The journal's segment files.
    static func segments(in directory: URL) throws -> [URL] {
        let journal = directory.appendingPathComponent("journal")
        return try FileManager.default.contentsOfDirectory(atPath: journal.path).filter { $0.hasSuffix(".log") }
            .sorted()
            .map { journal.appendingPathComponent($0) }
    }

    @Test(
        "a garbled journal record is moved aside with a log line; a torn tail is dropped; the rest is delivered in order"
    )
    func corruptEntriesAreMovedAside() async throws {
        let reservation = try PortReservation()
        let directory = OfflineFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }

        var operations: [QueuedOperation] = []
        do {
            let queue = try OfflineQueue(
                directory: directory, configuration: OfflineFixtures.configuration(offline: 60))
            for index in 0..<5 {
                operations.append(try queue.enqueue(PostNote(base: reservation.baseURL, text: "note-\(index)")))
            }
            queue.close()
        }
        let segment = try #require(try Self.segments(in: directory).last)
        var bytes = try Data(contentsOf: segment)
        // Entry 1 has a byte flipped (a disk that lost a bit); entry 3 is overwritten with garbage; the file
        // ends with half a record (a write cut short by a crash); a stray temp file is left too.
        for (index, garbage) in [(1, Data("X".utf8)), (3, Data("not json at all, not a record".utf8))] {
            let key = try #require(bytes.range(of: Data(operations[index].idempotencyKey.utf8)))
            bytes.replaceSubrange(key.lowerBound..<(key.lowerBound + garbage.count), with: garbage)
        }
        let torn = bytes.prefix(20)
        bytes.append(torn)
        try bytes.write(to: segment)
        try Data("half".utf8).write(to: directory.appendingPathComponent("journal").appendingPathComponent(".x.tmp"))

        let opened = try ReopenedQueue(directory, serving: "/notes", on: reservation)
        defer { opened.close() }
        let (server, queue, log, delivered) = (opened.server, opened.queue, opened.log, opened.delivered)
        #expect(queue.pending.map(\.id) == [operations[0].id, operations[2].id, operations[4].id])
        queue.register(PostNote.self) { PostNote(base: reservation.baseURL, text: "") }
        await delivered.wait(for: 3)

        #expect(server.receivedRequests("/notes").map { $0.bodyString ?? "" } == ["note-0", "note-2", "note-4"])
        let corruptLines = log.all.filter { $0.contains("corrupt queue entry") }
        #expect(corruptLines.count == 2, "\(log.all)")
        #expect(corruptLines.allSatisfy { $0.contains(segment.lastPathComponent) && $0.contains("moved aside") })
        #expect(log.all.filter { $0.contains("cut short by a crash") }.count == 1, "\(log.all)")
        let aside = try FileManager.default.contentsOfDirectory(
            atPath: directory.appendingPathComponent("corrupt").path)
        #expect(aside.count == 2)
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("journal/.x.tmp").path))
        // The damage was rewritten away: the next open finds nothing to report.
        queue.close()
        let again = Collector<String>()
        let reopened = try OfflineQueue(directory: directory, configuration: OfflineFixtures.configuration(log: again))
        reopened.close()
        #expect(again.all.isEmpty, "\(again.all)")
    }

    @Test("a version 1 folder (one file per entry) is moved into the journal; truncated or garbled files are set aside")
    func versionOneEntriesAreMigrated() async throws {
        let reservation = try PortReservation()
        let directory = OfflineFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let template: QueuedOperation
        do {
            let queue = try OfflineQueue(
                directory: directory, configuration: OfflineFixtures.configuration(offline: 60))
            defer { queue.close() }
            queue.suspend()
            template = try queue.enqueue(PostNote(base: reservation.baseURL, text: "template"))
            #expect(try queue.remove(template))
        }
        let pending = directory.appendingPathComponent("pending")
        var files: [URL] = []
        var operations: [QueuedOperation] = []
        for index in 0..<4 {
            var operation = template
            operation.id = UUID()
            operation.sequence = UInt64(index + 11)
            operation.idempotencyKey = "v1-\(index)"
            operations.append(operation)
            let file = pending.appendingPathComponent(OfflineFixtures.entryFileName(sequence: UInt64(index + 11)))
            var edited = try OfflineFixtures.storedJSON(operation)
            edited["inlineBody"] = Data("note-\(index)".utf8).base64EncodedString()
            edited["bodyLength"] = "note-\(index)".utf8.count
            try JSONSerialization.data(withJSONObject: edited).write(to: file)
            files.append(file)
        }
        let truncated = try Data(contentsOf: files[1])
        try truncated.prefix(truncated.count / 2).write(to: files[1])
        try Data("not json at all".utf8).write(to: files[2])

        let opened = try ReopenedQueue(directory, serving: "/notes", on: reservation)
        defer { opened.close() }
        let (server, queue, log, delivered) = (opened.server, opened.queue, opened.log, opened.delivered)
        #expect(queue.pending.map(\.id) == [operations[0].id, operations[3].id])
        #expect(try FileManager.default.contentsOfDirectory(atPath: pending.path).isEmpty, "moved into the journal")
        queue.register(PostNote.self) { PostNote(base: reservation.baseURL, text: "") }
        await delivered.wait(for: 2)

        #expect(server.receivedRequests("/notes").map { $0.bodyString ?? "" } == ["note-0", "note-3"])
        #expect(server.receivedRequests("/notes").map { $0.header("Idempotency-Key") ?? "" } == ["v1-0", "v1-3"])
        let corruptLines = log.all.filter { $0.contains("corrupt queue entry") }
        #expect(corruptLines.count == 2)
        #expect(corruptLines.contains { $0.contains(files[1].lastPathComponent) && $0.contains("moved aside") })
        let aside = try FileManager.default.contentsOfDirectory(
            atPath: directory.appendingPathComponent("corrupt").path)
        #expect(aside.count == 2)
    }

    @Test("a crash between writing a dead letter and removing its pending entry is finished on the next open")
    func interruptedDeadLetterMoveIsFinished() throws {
        let reservation = try PortReservation()
        let directory = OfflineFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let operation = try OfflineFixtures.enqueueOne(
            PostNote(base: reservation.baseURL, text: "rejected"), in: directory)
        // What moving to the dead letters leaves if killed after its first write: the dead letter, and the
        // entry still live in the journal.
        let stored = try OfflineFixtures.storedJSON(operation)
        let letter: [String: Any] = [
            "operation": stored, "reason": "PostNote failed: the server answered 422.", "statusCode": 422,
            "date": "2026-01-01T00:00:00Z",
        ]
        let name = OfflineFixtures.entryFileName(sequence: operation.sequence)
        try JSONSerialization.data(withJSONObject: letter).write(
            to: directory.appendingPathComponent("dead").appendingPathComponent(name))

        let queue = try OfflineQueue(directory: directory, configuration: OfflineFixtures.configuration(offline: 60))
        defer { queue.close() }
        #expect(queue.pending.isEmpty)
        #expect(queue.deadLetters.map(\.id) == [operation.id])
        #expect(queue.deadLetters.first?.statusCode == 422)
        // Finished on disk too: the next open finds it among the dead letters only.
        queue.close()
        let reopened = try OfflineQueue(directory: directory, configuration: OfflineFixtures.configuration(offline: 60))
        defer { reopened.close() }
        #expect(reopened.pending.isEmpty)
        #expect(reopened.deadLetters.map(\.id) == [operation.id])
    }
}
