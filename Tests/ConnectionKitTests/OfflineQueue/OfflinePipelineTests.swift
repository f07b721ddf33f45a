import ConnectionKit
import ConnectionKitTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What the server saw: how many requests were being answered at once, and which arrived in which order.
final class ArrivalLog: @unchecked Sendable {
    // Safe: every field is only touched while `condition` is locked.
    private let condition = NSCondition()
    private var current = 0
    private var maximumInFlight = 0
    private var order: [Int] = []

    /// Records an arrival; returns how many arrived before it.
    func arrive(_ index: Int) -> Int {
        condition.lock()
        defer { condition.unlock() }
        current += 1
        maximumInFlight = max(maximumInFlight, current)
        order.append(index)
        condition.broadcast()
        return order.count - 1
    }

    /// Waits until `count` requests have arrived, or `deadline` passes.
    func waitForArrivals(_ count: Int, until deadline: Date) {
        condition.lock()
        defer { condition.unlock() }
        while order.count < count, condition.wait(until: deadline) {}
    }

    func leave() {
        condition.lock()
        defer { condition.unlock() }
        current -= 1
    }

    var maximum: Int {
        condition.lock()
        defer { condition.unlock() }
        return maximumInFlight
    }

    var arrivals: [Int] {
        condition.lock()
        defer { condition.unlock() }
        return order
    }
}

@Suite("OfflineQueue pipelined delivery", .offThePool, .exclusive, .timeLimit(.minutes(10)))
struct OfflinePipelineTests {
    @Test(
        "with maximumInFlight N, exactly N writes are in flight at once, each started only after every write N places before it was received",
        arguments: [1, 4])
    func windowOfWrites(width: Int) async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        let log = ArrivalLog()
        let total = 12
        server.route("POST", "/notes") { request in
            let index = Int((request.bodyString ?? "").dropFirst("note-".count)) ?? -1
            let before = log.arrive(index)
            // Hold each answer until its group of `width` arrivals is complete (bounded, so a bug shows as a
            // wrong count, not a hang): the whole window is then in flight at once.
            let groupEnd = (before / width + 1) * width
            log.waitForArrivals(groupEnd, until: Date().addingTimeInterval(3))
            log.leave()
            return .text("ok")
        }
        let directory = OfflineFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var configuration = OfflineFixtures.configuration()
        configuration.maximumInFlight = width
        let queue = try OfflineQueue(directory: directory, configuration: configuration)
        defer { queue.close() }
        queue.suspend()
        let delivered = Collector<QueuedOperation>()
        queue.deliveredHandler = { operation, _ in delivered.append(operation) }
        var keys: [String] = []
        for index in 0..<total {
            keys.append(try queue.enqueue(PostNote(base: server.baseURL, text: "note-\(index)")).idempotencyKey)
        }
        queue.resume()
        await delivered.wait(for: total)

        #expect(log.maximum == width)
        let arrivals = log.arrivals
        #expect(arrivals.sorted() == Array(0..<total))
        for (position, index) in arrivals.enumerated() {
            // Every write at least `width` places before this one had arrived already.
            let earlier = Set(arrivals.prefix(position))
            #expect((0..<max(0, index - width + 1)).allSatisfy(earlier.contains), "write \(index) arrived too early")
        }
        if width == 1 { #expect(arrivals == Array(0..<total)) }
        #expect(Set(server.receivedRequests("/notes").map { $0.header("Idempotency-Key") ?? "" }) == Set(keys))
        #expect(queue.pending.isEmpty)
    }

    @Test("setReachable(true) from the failed-attempt handler always cuts the wait short (no lost wake-up)")
    func reachableFromFailureHandlerIsNeverLost() async throws {
        let reservation = try PortReservation()
        let directory = OfflineFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // A minute between attempts: five attempts within the time limit happen only if every wake-up works.
        let queue = try OfflineQueue(
            directory: directory, configuration: OfflineFixtures.configuration(online: 60, offline: 60))
        defer { queue.close() }
        let failures = Collector<FailedAttempt>()
        let rounds = 5
        queue.failedAttemptHandler = { [weak queue] attempt in
            failures.append(attempt)
            // At once, from the callback: the moment the worker is still handling the failure.
            if failures.all.count < rounds { queue?.setReachable(true) }
        }
        try queue.enqueue(PostNote(base: reservation.baseURL, text: "again"))
        #expect(await failures.wait(for: rounds, timeout: 20))
        #expect(failures.all.prefix(rounds - 1).allSatisfy { $0.retryDelay == 60 || $0.retryDelay == 0 })
    }
}
