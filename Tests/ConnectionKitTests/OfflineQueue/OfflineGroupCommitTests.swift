import ConnectionKitTesting
import Foundation
import Testing

@testable import ConnectionKit

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("OfflineQueue group commit and back-pressure", .offThePool, .exclusive, .timeLimit(.minutes(10)))
struct OfflineGroupCommitTests {
    @Test("enqueues from 16 threads at once share syncs; each is stored once, in the order of its sequence number")
    func concurrentEnqueuesShareSyncs() async throws {
        let directory = OfflineFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let queue = try OfflineQueue(directory: directory, configuration: OfflineFixtures.configuration(offline: 60))
        queue.suspend()
        let acknowledged = Collector<QueuedOperation>()
        let producers = 16
        let perProducer = 25
        let finished = DispatchGroup()
        for producer in 0..<producers {
            finished.enter()
            Thread {
                for index in 0..<perProducer {
                    do {
                        let note = PostNote(base: URL(fileURLWithPath: "/"), text: "\(producer)-\(index)")
                        acknowledged.append(try queue.enqueue(note))
                    } catch {
                        Issue.record("enqueue failed: \(error)")
                    }
                }
                finished.leave()
            }.start()
        }
        #expect(await finished.left(within: 60))
        let total = producers * perProducer
        let operations = acknowledged.all
        #expect(operations.count == total)
        #expect(Set(operations.map(\.sequence)).count == total, "sequence numbers are unique")
        #expect(queue.pending.map(\.sequence) == operations.map(\.sequence).sorted())
        let syncs = queue.journal.syncedBatches
        #expect(syncs < total, "\(syncs) syncs for \(total) enqueues: no batch held more than one")
        queue.close()

        // Durable, each once: a queue opened afterwards holds exactly the acknowledged writes.
        let reopened = try OfflineQueue(directory: directory, configuration: OfflineFixtures.configuration(offline: 60))
        defer { reopened.close() }
        reopened.suspend()
        #expect(reopened.pending.map(\.id) == operations.sorted { $0.sequence < $1.sequence }.map(\.id))
        #expect(
            Set(reopened.pending.map { $0.inlineBody.map { String(decoding: $0, as: UTF8.self) } ?? "" }).count == total
        )
    }

    /// The ``OfflineQueueError`` inside a `ConnectionError.fileSystem`, if that is what `body` threw.
    static func queueError(_ body: () throws -> Void) -> OfflineQueueError? {
        do {
            try body()
            return nil
        } catch {
            guard let error = error as? ConnectionError, error.kind == .fileSystem,
                let underlying = error.underlyingError
            else {
                return nil
            }
            return underlying as? OfflineQueueError
        }
    }

    @Test("past maximumPendingOperations enqueue throws a typed error and stores nothing; room made is usable again")
    func operationLimit() throws {
        let directory = OfflineFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var configuration = OfflineFixtures.configuration(offline: 60)
        configuration.maximumPendingOperations = 3
        let queue = try OfflineQueue(directory: directory, configuration: configuration)
        defer { queue.close() }
        queue.suspend()
        let base = URL(fileURLWithPath: "/")
        let first = try queue.enqueue(PostNote(base: base, text: "1"))
        try queue.enqueue(PostNote(base: base, text: "2"))
        try queue.enqueue(PostNote(base: base, text: "3"))
        let error = Self.queueError { try queue.enqueue(PostNote(base: base, text: "4")) }
        #expect(error?.kind == .full(pendingOperations: 3, pendingBytes: 3))
        #expect(error?.description.contains("full") == true)
        #expect(queue.pending.count == 3)
        #expect(try queue.remove(first))
        try queue.enqueue(PostNote(base: base, text: "5"))
        #expect(queue.pending.map { String(decoding: $0.inlineBody ?? Data(), as: UTF8.self) } == ["2", "3", "5"])
    }

    @Test("past maximumPendingBytes enqueue throws a typed error and leaves no body file behind")
    func byteLimit() throws {
        let directory = OfflineFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var configuration = OfflineFixtures.configuration(offline: 60)
        configuration.maximumPendingBytes = 3000
        configuration.inlineBodyLimit = 1000
        let queue = try OfflineQueue(directory: directory, configuration: configuration)
        defer { queue.close() }
        queue.suspend()
        let base = URL(fileURLWithPath: "/")
        try queue.enqueue(PostNote(base: base, text: String(repeating: "a", count: 2000)))
        let error = Self.queueError {
            try queue.enqueue(PostNote(base: base, text: String(repeating: "b", count: 1500)))
        }
        #expect(error?.kind == .full(pendingOperations: 1, pendingBytes: 2000))
        let tooBig = Self.queueError {
            try queue.enqueue(PostNote(base: base, text: String(repeating: "c", count: 4000)))
        }
        #expect(tooBig != nil)
        try queue.enqueue(PostNote(base: base, text: String(repeating: "d", count: 1000)))
        #expect(queue.pending.map(\.bodyLength) == [2000, 1000])
        #expect(OfflineFixtures.files(in: directory.appendingPathComponent("bodies")).count == 1)
    }

    @Test("past 4 MiB the journal starts a new segment; segments whose writes were all delivered are deleted")
    func segmentsRotateAndEmptyOnesAreDeleted() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("POST", "/notes") { _ in .text("ok") }
        let directory = OfflineFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let journal = directory.appendingPathComponent("journal")
        func segments() -> [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: journal.path)) ?? []).filter { $0.hasSuffix(".log") }
        }
        var configuration = OfflineFixtures.configuration()
        configuration.maximumInFlight = 4
        let queue = try OfflineQueue(directory: directory, configuration: configuration)
        defer { queue.close() }
        queue.suspend()
        let delivered = Collector<QueuedOperation>()
        queue.deliveredHandler = { operation, _ in delivered.append(operation) }
        // 60 KiB bodies stay inline (about 80 KiB of JSON each): 120 of them fill more than two segments.
        var texts: [String] = []
        for index in 0..<120 {
            let text = "\(index):" + String(repeating: "x", count: 60 * 1024)
            texts.append(text)
            try queue.enqueue(PostNote(base: server.baseURL, text: text))
        }
        #expect(segments().count >= 3, "\(segments())")
        queue.resume()
        await delivered.wait(for: 120, timeout: 60)
        #expect(Set(server.receivedRequests("/notes").map { $0.bodyString ?? "" }) == Set(texts))
        #expect(segments().count == 1, "\(segments())")
        queue.close()
        let reopened = try OfflineQueue(directory: directory, configuration: OfflineFixtures.configuration())
        defer { reopened.close() }
        #expect(reopened.pending.isEmpty)
    }
}
