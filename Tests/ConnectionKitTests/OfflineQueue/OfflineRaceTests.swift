import ConnectionKitTesting
import Foundation
import Testing

@testable import ConnectionKit

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The races found in the queue's delivery, each made to happen at the exact moment, against a real server.
@Suite("OfflineQueue delivery races", .offThePool, .exclusive, .timeLimit(.minutes(10)))
struct OfflineRaceTests {
    @Test("race: close() while an attempt is being prepared (inside the class's factory) sends nothing")
    func closeDuringAttemptPreparationSendsNothing() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("POST", "/notes") { _ in .text("ok") }
        let directory = OfflineFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        _ = try OfflineFixtures.enqueueOne(PostNote(base: server.baseURL, text: "once"), in: directory)

        let queue = try OfflineQueue(directory: directory, configuration: OfflineFixtures.configuration())
        let box = Locked<OfflineQueue?>(queue)
        let factoryCalls = Collector<Int>()
        let base = server.baseURL
        // The factory runs on the worker after it decided to attempt and before the request starts: the
        // moment `close()` from another thread can fall into. Closing here makes that moment certain.
        queue.register(PostNote.self) {
            let closing = box.withLock { queue -> OfflineQueue? in
                defer { queue = nil }
                return queue
            }
            closing?.close()
            factoryCalls.append(1)
            return PostNote(base: base, text: "")
        }
        #expect(await factoryCalls.wait(for: 1, timeout: 10))
        // Settle window: a request started after close() would reach the server well within it.
        let sent = await server.waitForHits("/notes", timeout: 1.5)
        #expect(!sent && server.receivedRequests("/notes").isEmpty, "a write was sent by a closed queue")
        // Still stored: the next process delivers it.
        let reopened = try OfflineQueue(directory: directory, configuration: OfflineFixtures.configuration())
        defer { reopened.close() }
        reopened.suspend()
        #expect(reopened.pending.map { String(decoding: $0.inlineBody ?? Data(), as: UTF8.self) } == ["once"])
    }

    @Test("race: setReachable(true) while the failing attempt is in flight retries at once, not after the wait")
    func reachableDuringFailingAttemptIsNotLost() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        let box = Locked<OfflineQueue?>(nil)
        let served = Locked(0)
        server.route("POST", "/notes") { _ in
            let index = served.withLock { count -> Int in
                defer { count += 1 }
                return count
            }
            guard index == 0 else { return .text("ok") }
            // The attempt is in flight and about to fail: the app hears the network is back now.
            box.withLock { $0 }?.setReachable(true)
            return TestResponse(status: 503)
        }
        let directory = OfflineFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // A minute between attempts: delivery within the time limit happens only if the wake-up is kept.
        let queue = try OfflineQueue(
            directory: directory, configuration: OfflineFixtures.configuration(online: 60, offline: 60))
        defer { queue.close() }
        box.withLock { $0 = queue }
        let delivered = Collector<QueuedOperation>()
        queue.deliveredHandler = { operation, _ in delivered.append(operation) }
        try queue.enqueue(PostNote(base: server.baseURL, text: "again"))
        #expect(await delivered.wait(for: 1, timeout: 15))
        #expect(server.receivedRequests("/notes").count == 2)
    }
}
