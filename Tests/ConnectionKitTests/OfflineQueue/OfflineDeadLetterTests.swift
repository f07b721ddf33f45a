import ConnectionKit
import ConnectionKitTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("OfflineQueue dead letters", .offThePool, .exclusive, .timeLimit(.minutes(10)))
struct OfflineDeadLetterTests {
    /// A queue on a fresh directory with handlers feeding collectors.
    struct Harness {
        let directory = OfflineFixtures.temporaryDirectory()
        let queue: OfflineQueue
        let delivered = Collector<QueuedOperation>()
        let dead = Collector<DeadLetter>()

        init(configuration: OfflineQueue.Configuration = OfflineFixtures.configuration()) throws {
            queue = try OfflineQueue(directory: directory, configuration: configuration)
            queue.deliveredHandler = { [delivered] operation, _ in delivered.append(operation) }
            queue.deadLetterHandler = { [dead] letter in dead.append(letter) }
        }

        func tearDown() {
            queue.close()
            try? FileManager.default.removeItem(at: directory)
        }
    }

    /// Answers each request to `path` with the next status of `statuses` (the last one repeats).
    static func route(_ server: TestServer, _ path: String, statuses: [Int]) {
        OfflineFixtures.answer(server, path, inTurn: statuses.map { .status($0, body: "answer") })
    }

    @Test(
        "a 4xx other than 408 and 429 is dead-lettered with its error, and the queue goes on",
        arguments: [400, 404, 409, 422])
    func clientErrorIsDeadLettered(status: Int) async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        Self.route(server, "/rejected", statuses: [status])
        Self.route(server, "/notes", statuses: [200])
        let harness = try Harness()
        defer { harness.tearDown() }

        let rejected = try harness.queue.enqueue(PostNote(base: server.baseURL, text: "bad", path: "rejected"))
        let accepted = try harness.queue.enqueue(PostNote(base: server.baseURL, text: "good"))
        await harness.dead.wait(for: 1)
        await harness.delivered.wait(for: 1)

        let letter = try #require(harness.dead.all.first)
        #expect(letter.operation.id == rejected.id)
        #expect(letter.statusCode == status)
        #expect(letter.reason.contains("\(status)"))
        #expect(letter.reason.contains("PostNote"))
        #expect(letter.operation.attempts == 1)
        #expect(server.hits("/rejected") == 1)
        #expect(harness.delivered.all.map(\.id) == [accepted.id])
        #expect(harness.queue.deadLetters.map(\.id) == [rejected.id])
        #expect(harness.queue.pending.isEmpty)
        #expect(OfflineFixtures.files(in: harness.directory.appendingPathComponent("dead")).count == 1)

        // Tooling removes it: gone from memory and disk.
        #expect(try harness.queue.remove(letter.operation))
        #expect(harness.queue.deadLetters.isEmpty)
        #expect(OfflineFixtures.files(in: harness.directory.appendingPathComponent("dead")).isEmpty)
    }

    @Test("408, 429 and 5xx are retried at the online interval until the write is accepted")
    func retryableStatusesAreRetried() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        Self.route(server, "/notes", statuses: [408, 429, 500, 503, 201])
        let harness = try Harness()
        defer { harness.tearDown() }

        let operation = try harness.queue.enqueue(PostNote(base: server.baseURL, text: "eventually"))
        await harness.delivered.wait(for: 1)
        #expect(harness.delivered.all.first?.id == operation.id)
        #expect(harness.delivered.all.first?.attempts == 5)
        #expect(harness.dead.all.isEmpty)
        let keys = Set(server.receivedRequests("/notes").map { $0.header("Idempotency-Key") })
        #expect(keys == [operation.idempotencyKey])
    }

    @Test("an operation that fails more often than maximumAttempts is dead-lettered; the next is delivered")
    func attemptLimit() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        Self.route(server, "/failing", statuses: [503])
        Self.route(server, "/notes", statuses: [200])
        var configuration = OfflineFixtures.configuration()
        configuration.maximumAttempts = 3
        let harness = try Harness(configuration: configuration)
        defer { harness.tearDown() }

        let failing = try harness.queue.enqueue(PostNote(base: server.baseURL, text: "x", path: "failing"))
        let next = try harness.queue.enqueue(PostNote(base: server.baseURL, text: "y"))
        await harness.dead.wait(for: 1)
        await harness.delivered.wait(for: 1)
        #expect(harness.dead.all.first?.operation.id == failing.id)
        #expect(harness.dead.all.first?.operation.attempts == 3)
        #expect(harness.dead.all.first?.statusCode == 503)
        #expect(harness.dead.all.first?.reason.contains("after 3 attempts") == true)
        #expect(server.hits("/failing") == 3)
        #expect(harness.delivered.all.map(\.id) == [next.id])
    }

    @Test("an operation older than maximumAge is dead-lettered after its next failed attempt")
    func ageLimit() async throws {
        let reservation = try PortReservation()
        var configuration = OfflineFixtures.configuration()
        configuration.maximumAge = 0
        let harness = try Harness(configuration: configuration)
        defer { harness.tearDown() }

        let operation = try harness.queue.enqueue(PostNote(base: reservation.baseURL, text: "stale"))
        await harness.dead.wait(for: 1)
        #expect(harness.dead.all.first?.operation.id == operation.id)
        #expect(harness.dead.all.first?.statusCode == nil)
        #expect(harness.dead.all.first?.reason.contains("older than") == true)
        #expect(harness.queue.isReachable == false)
    }

    @Test("remove(_:) takes a pending operation out of the queue and off the disk")
    func removePending() throws {
        let reservation = try PortReservation()
        let harness = try Harness(configuration: OfflineFixtures.configuration(offline: 60))
        defer { harness.tearDown() }
        let first = try harness.queue.enqueue(PostNote(base: reservation.baseURL, text: "1"))
        let second = try harness.queue.enqueue(PostNote(base: reservation.baseURL, text: "2"))
        #expect(try harness.queue.remove(second))
        #expect(harness.queue.pending.map(\.id) == [first.id])
        #expect(try harness.queue.remove(second) == false)
        // Off the disk too: a queue opened on the folder afterwards has only the first.
        harness.queue.close()
        let reopened = try OfflineQueue(
            directory: harness.directory, configuration: OfflineFixtures.configuration(offline: 60))
        defer { reopened.close() }
        #expect(reopened.pending.map(\.id) == [first.id])
    }
}
