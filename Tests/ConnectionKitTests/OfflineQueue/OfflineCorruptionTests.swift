import ConnectionKit
import ConnectionKitTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("OfflineQueue corrupt entries")
struct OfflineCorruptionTests {
    @Test("a truncated or garbled entry is moved aside with a log line; the rest is delivered in order")
    func corruptEntriesAreMovedAside() throws {
        let reservation = try PortReservation()
        let directory = OfflineFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }

        var operations: [QueuedOperation] = []
        do {
            let queue = try OfflineQueue(
                directory: directory, configuration: OfflineFixtures.configuration(offline: 60))
            for index in 0..<4 {
                operations.append(try queue.enqueue(PostNote(base: reservation.baseURL, text: "note-\(index)")))
            }
            queue.close()
        }
        let pending = directory.appendingPathComponent("pending")
        let files = try FileManager.default.contentsOfDirectory(atPath: pending.path).sorted()
        #expect(files.count == 4)
        // Entry 1 is cut in half (a disk that lost a write), entry 2 is garbage; a stray temp file is left too.
        let truncated = pending.appendingPathComponent(files[1])
        let bytes = try Data(contentsOf: truncated)
        try bytes.prefix(bytes.count / 2).write(to: truncated)
        try Data("not json at all".utf8).write(to: pending.appendingPathComponent(files[2]))
        try Data("half".utf8).write(to: pending.appendingPathComponent(".x.json.tmp"))

        let server = TestServer()
        defer { server.stop() }
        server.route("POST", "/notes") { _ in .text("ok") }
        try reservation.startServer(server)
        let log = Collector<String>()
        let queue = try OfflineQueue(directory: directory, configuration: OfflineFixtures.configuration(log: log))
        defer { queue.close() }
        let delivered = Collector<QueuedOperation>()
        queue.deliveredHandler = { operation, _ in delivered.append(operation) }
        #expect(queue.pending.map(\.id) == [operations[0].id, operations[3].id])
        queue.register(PostNote.self) { PostNote() }
        delivered.wait(for: 2)

        #expect(server.receivedRequests("/notes").map { $0.bodyString ?? "" } == ["note-0", "note-3"])
        let corruptLines = log.all.filter { $0.contains("corrupt queue entry") }
        #expect(corruptLines.count == 2)
        #expect(corruptLines.contains { $0.contains(files[1]) && $0.contains("moved aside") })
        let aside = try FileManager.default.contentsOfDirectory(
            atPath: directory.appendingPathComponent("corrupt").path)
        #expect(aside.count == 2)
        #expect(!FileManager.default.fileExists(atPath: pending.appendingPathComponent(".x.json.tmp").path))
    }

    @Test("a crash between writing a dead letter and removing its pending entry is finished on the next open")
    func interruptedDeadLetterMoveIsFinished() throws {
        let reservation = try PortReservation()
        let directory = OfflineFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let operation: QueuedOperation
        do {
            let queue = try OfflineQueue(
                directory: directory, configuration: OfflineFixtures.configuration(offline: 60))
            queue.suspend()
            operation = try queue.enqueue(PostNote(base: reservation.baseURL, text: "rejected"))
            queue.close()
        }
        // What `moveToDead` leaves if killed after its first write: the dead letter and the pending entry.
        let name = try #require(
            FileManager.default.contentsOfDirectory(atPath: directory.appendingPathComponent("pending").path).first)
        let pendingFile = directory.appendingPathComponent("pending").appendingPathComponent(name)
        let stored = try JSONSerialization.jsonObject(with: Data(contentsOf: pendingFile))
        let letter: [String: Any] = [
            "operation": stored, "reason": "PostNote failed: the server answered 422.", "statusCode": 422,
            "date": "2026-01-01T00:00:00Z",
        ]
        try JSONSerialization.data(withJSONObject: letter).write(
            to: directory.appendingPathComponent("dead").appendingPathComponent(name))

        let queue = try OfflineQueue(directory: directory, configuration: OfflineFixtures.configuration(offline: 60))
        defer { queue.close() }
        #expect(queue.pending.isEmpty)
        #expect(queue.deadLetters.map(\.id) == [operation.id])
        #expect(queue.deadLetters.first?.statusCode == 422)
        #expect(!FileManager.default.fileExists(atPath: pendingFile.path))
    }
}
