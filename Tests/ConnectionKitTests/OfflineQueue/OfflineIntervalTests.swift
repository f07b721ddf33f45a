import ConnectionKit
import ConnectionKitTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Records the moment of each attempt: `authorization` is read once per attempt, at send time.
final class TimedNote: ConnectionRequest<Data>, @unchecked Sendable {
    // Safe: immutable stored properties only.
    let base: URL
    let attempts: Collector<Date>

    init(base: URL, attempts: Collector<Date>) {
        self.base = base
        self.attempts = attempts
        super.init()
    }

    override var url: URL? { base.appendingPathComponent("notes") }
    override var httpMethod: HTTPMethod { .post }
    override var bodyData: Data? { Data("timed".utf8) }
    override var timeoutInterval: TimeInterval { 5 }
    override var authorization: Authorization? {
        attempts.append(Date())
        return .bearer("timed")
    }
}

@Suite("OfflineQueue retry intervals", .offThePool, .exclusive, .timeLimit(.minutes(10)))
struct OfflineIntervalTests {
    static let online: TimeInterval = 0.3
    static let offline: TimeInterval = 1.2
    /// Scheduling on a loaded machine may add this much to a wait; nothing may take from it.
    static let slack: TimeInterval = 0.6

    /// The queue's waits: from the end of each failed attempt to the start of the next.
    static func waits(starts: [Date], failures: [FailedAttempt]) -> [TimeInterval] {
        zip(starts.dropFirst(), failures).map { $0.timeIntervalSince($1.endedAt) }
    }

    @Test(
        "attempts are offlineRetryInterval apart while unreachable and onlineRetryInterval apart once the server answers"
    )
    func intervalsFollowReachability() async throws {
        let reservation = try PortReservation()
        let server = TestServer()
        defer { server.stop() }
        OfflineFixtures.answer(server, "/notes", inTurn: Array(repeating: .status(503), count: 2) + [.text("ok")])
        let directory = OfflineFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let queue = try OfflineQueue(
            directory: directory,
            configuration: OfflineFixtures.configuration(online: Self.online, offline: Self.offline))
        defer { queue.close() }
        let attempts = Collector<Date>()
        queue.register(TimedNote.self) { TimedNote(base: reservation.baseURL, attempts: attempts) }
        let delivered = Collector<QueuedOperation>()
        queue.deliveredHandler = { operation, _ in delivered.append(operation) }
        let failures = Collector<FailedAttempt>()
        queue.failedAttemptHandler = { attempt in failures.append(attempt) }

        try queue.enqueue(TimedNote(base: reservation.baseURL, attempts: Collector<Date>()))
        await attempts.wait(for: 3)
        #expect(queue.isReachable == false)
        try reservation.startServer(server)
        await delivered.wait(for: 1)
        await failures.wait(for: attempts.all.count - 1)

        let gaps = Self.waits(starts: attempts.all, failures: failures.all)
        // Attempts 1-3 were refused: the two gaps between them are offline waits.
        for gap in gaps.prefix(2) {
            #expect(gap >= Self.offline - 0.01 && gap <= Self.offline + Self.slack, "offline gap \(gap)")
        }
        // The last three attempts reached the server (503, 503, 200): online waits between them.
        let onlineGaps = gaps.suffix(2)
        #expect(onlineGaps.count == 2)
        for gap in onlineGaps {
            #expect(gap >= Self.online - 0.01 && gap <= Self.online + Self.slack, "online gap \(gap)")
        }
        #expect(failures.all.map(\.reachedServer).suffix(2) == [true, true])
        #expect(failures.all.prefix(2).allSatisfy { !$0.reachedServer && $0.retryDelay == Self.offline })
        #expect(server.hits("/notes") == 3)
        #expect(queue.isReachable == true)
    }

    @Test("with a backoff policy the wait grows with consecutive failures")
    func backoffPolicy() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        OfflineFixtures.answer(server, "/notes", inTurn: Array(repeating: .status(500), count: 3) + [.text("ok")])
        let directory = OfflineFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var configuration = OfflineFixtures.configuration(online: 0.05, offline: 0.05)
        configuration.backoff = RetryPolicy(initialBackoff: 0.2, backoffMultiplier: 2, jitter: 0)
        let queue = try OfflineQueue(directory: directory, configuration: configuration)
        defer { queue.close() }
        let attempts = Collector<Date>()
        queue.register(TimedNote.self) { TimedNote(base: server.baseURL, attempts: attempts) }
        let delivered = Collector<QueuedOperation>()
        queue.deliveredHandler = { operation, _ in delivered.append(operation) }
        let failures = Collector<FailedAttempt>()
        queue.failedAttemptHandler = { attempt in failures.append(attempt) }

        try queue.enqueue(TimedNote(base: server.baseURL, attempts: Collector<Date>()))
        await delivered.wait(for: 1)
        await failures.wait(for: attempts.all.count - 1)
        let gaps = Self.waits(starts: attempts.all, failures: failures.all)
        #expect(gaps.count == 3)
        for (gap, expected) in zip(gaps, [0.2, 0.4, 0.8]) {
            #expect(gap >= expected - 0.01 && gap <= expected + Self.slack, "gap \(gap), expected \(expected)")
        }
    }
}
