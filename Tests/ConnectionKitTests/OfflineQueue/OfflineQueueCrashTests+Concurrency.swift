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

/// SIGKILL while 16 threads group-commit, and while a pipelined drain has 8 writes in flight, at random
/// moments, many times. In the crash-safety suite (an extension, so that CI's ThreadSanitizer step skips
/// it with the others: forking under TSan trips TSan's own check).
extension OfflineQueueCrashTests {
    static let concurrentWrites = 600
    static let producers = 16
    static let inFlight = 8

    @Test(
        "SIGKILL during group commit from 16 threads: every acknowledged write arrives once, nothing else but the few in progress",
        arguments: 0..<6)
    func killDuringGroupCommit(round: Int) async throws {
        let reservation = try PortReservation()
        let directory = OfflineFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let killAfter = round == 0 ? 0 : Int.random(in: 1..<(Self.concurrentWrites - 50))
        let output = try await Self.runHelper(
            [
                "enqueue", directory.path, reservation.baseURL.absoluteString, String(Self.concurrentWrites),
                String(Self.producers),
            ], killAfterLines: killAfter, mayFinishFirst: true)
        let acknowledged = Self.acknowledgements(in: output)
        #expect(acknowledged.count >= killAfter)

        let opened = try ReopenedQueue(directory, serving: "/writes", on: reservation)
        defer { opened.close() }
        let (server, queue, log, delivered) = (opened.server, opened.queue, opened.log, opened.delivered)
        let stored = queue.pending
        // At most one enqueue per producer was under way at the kill: stored, perhaps, but never acknowledged.
        #expect(stored.count >= acknowledged.count && stored.count <= acknowledged.count + Self.producers)
        queue.register(typeName: "CrashWrite") { DrainWrite(base: reservation.baseURL) }
        await delivered.wait(for: stored.count, timeout: 120)

        let received = server.receivedRequests("/writes")
        let keys = received.map { $0.header("Idempotency-Key") ?? "(none)" }
        #expect(keys == stored.map(\.idempotencyKey), "delivered once each, in sequence order")
        #expect(Set(acknowledged.keys).isSubset(of: Set(keys)), "an acknowledged write was lost")
        let acknowledgedIndexes = Set(acknowledged.values)
        for request in received {
            let body = request.bodyString ?? ""
            if let index = acknowledged[request.header("Idempotency-Key") ?? ""] {
                #expect(body == "write-\(index)")
            } else {
                // Never enqueued: a write nobody asked for, or an acknowledged one under another key.
                let index = Int(body.dropFirst("write-".count)) ?? -1
                #expect((0..<Self.concurrentWrites).contains(index) && !acknowledgedIndexes.contains(index), "\(body)")
            }
            #expect(request.header("Authorization") == "Bearer crash-secret-token")
        }
        #expect(queue.pending.isEmpty)
        #expect(!log.all.contains { $0.contains("corrupt") }, "\(log.all)")
    }

    @Test(
        "SIGKILL during a drain with 8 in flight: every write arrives, at most the 8 in flight twice, same key",
        arguments: 0..<4)
    func killDuringPipelinedDrain(round: Int) async throws {
        let writes = 300
        let reservation = try PortReservation()
        let directory = OfflineFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let acknowledged = Self.acknowledgements(
            in: try await Self.runHelper(
                ["enqueue", directory.path, reservation.baseURL.absoluteString, String(writes), "4"],
                killAfterLines: nil))
        #expect(acknowledged.count == writes)

        let server = TestServer()
        defer { server.stop() }
        server.route("POST", "/writes") { _ in .text("ok") }
        try reservation.startServer(server)
        let killAfter = round == 0 ? Int.random(in: 1..<10) : Int.random(in: 10..<(writes - 20))
        let drained = try await Self.runHelper(
            ["drain", directory.path, reservation.baseURL.absoluteString, String(Self.inFlight)],
            killAfterLines: killAfter, mayFinishFirst: true)
        let deliveredByChild = Self.lines(in: drained).filter { $0.hasPrefix("DELIVERED ") }.count
        #expect(deliveredByChild >= killAfter)

        var configuration = OfflineFixtures.configuration()
        configuration.maximumInFlight = Self.inFlight
        let queue = try OfflineQueue(directory: directory, configuration: configuration)
        defer { queue.close() }
        let delivered = Collector<QueuedOperation>()
        queue.deliveredHandler = { operation, _ in delivered.append(operation) }
        let remaining = queue.pending.count
        #expect(remaining <= writes - deliveredByChild + Self.inFlight)
        queue.register(typeName: "CrashWrite") { DrainWrite(base: reservation.baseURL) }
        await delivered.wait(for: remaining, timeout: 120)

        let received = server.receivedRequests("/writes")
        let keys = received.map { $0.header("Idempotency-Key") ?? "(none)" }
        #expect(Set(keys) == Set(acknowledged.keys), "a write was lost, or one never enqueued arrived")
        for request in received {
            #expect(request.bodyString == acknowledged[request.header("Idempotency-Key") ?? ""].map { "write-\($0)" })
        }
        let counts = Dictionary(keys.map { ($0, 1) }, uniquingKeysWith: +)
        #expect(counts.values.allSatisfy { $0 <= 2 })
        #expect(counts.values.filter { $0 == 2 }.count <= Self.inFlight, "more arrived twice than were in flight")
        #expect(queue.pending.isEmpty)
        #expect(queue.deadLetters.isEmpty)
    }
}
