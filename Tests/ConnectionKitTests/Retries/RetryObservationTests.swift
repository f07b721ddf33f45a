import ConnectionKit
import ConnectionKitTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

final class ObservedRetry: RetryingRequest, @unchecked Sendable {}
final class ProgressRetry: RetryingRequest, @unchecked Sendable {}
final class EventedRetry: RetryingRequest, @unchecked Sendable {}

/// Retries as the registry, its events and the progress handler show them.
@Suite(.offThePool, .exclusive, .timeLimit(.minutes(20))) struct RetryObservationTests {
    @Test func theRegistryShowsTheAttemptNumber() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        let seen = Locked<[Int?]>([])
        let counter = Counter()
        let url = server.url("/observed")
        server.route("/observed") { _ in
            // While the server answers attempt n, the registry says the request is on attempt n.
            let attempt = ConnectionRegistry.shared.snapshot().first { $0.redactedURL == url.absoluteString }?.attempt
            seen.withLock { $0.append(attempt) }
            return counter.next() < 3 ? .status(503) : .text("done")
        }
        let request = ObservedRetry(url, policy: testPolicy(attempts: 3))
        #expect(await run(request)?.data == Data("done".utf8))
        #expect(seen.withLock { $0 } == [1, 2, 3])
        #expect(request.attempt == 3)
        #expect(!ConnectionRegistry.shared.isInUse(ObservedRetry.self))
    }

    @Test func eventsReportEachRetry() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/events") { _ in .status(503) }
        let events = ConnectionRegistry.shared.events
        let collected = Task {
            var mine: [ConnectionEvent] = []
            for await event in events where event.snapshot.typeName == "EventedRetry" {
                if case .progressed = event.kind { continue }
                mine.append(event)
                if event.kind.isEnd { break }
            }
            return mine
        }
        // The end event is pushed before the handler runs; this only stops a broken stream from hanging
        // (generously: other suites may flood the registry's events meanwhile).
        DispatchQueue.global().asyncAfter(deadline: .now() + 60) { collected.cancel() }
        let request = EventedRetry(server.url("/events"), policy: testPolicy(attempts: 3, backoff: 0.1))
        let recorder = EndingRecorder(settle: settleWindow(for: request))
        recorder.track(request, queue: DispatchQueue(label: "RetryObservationTests"))
        request.start()
        // Waits off the cooperative pool, which the collecting task needs.
        await recorder.ended(within: 15)
        let ending = recorder.ending(of: request)
        #expect(ending?.error?.statusCode == 503)
        let mine = await collected.value
        #expect(
            mine.map(\.kind.name) == ["started", "sending", "retried", "sending", "retried", "sending", "failed"])
        #expect(Set(mine.map(\.snapshot.identifier)) == [request.identifier])
        let retries = mine.compactMap { event -> (next: Int, delay: TimeInterval, status: Int?, shown: Int)? in
            guard case .retried(let attempt, let delay, let error) = event.kind else { return nil }
            return (attempt, delay, error.statusCode, event.snapshot.attempt)
        }
        #expect(retries.map(\.next) == [2, 3], "the attempt about to start")
        #expect(retries.map(\.shown) == [1, 2], "the snapshot shows the attempt that failed")
        #expect(retries.allSatisfy { $0.delay == 0.1 && $0.status == 503 })
        #expect(server.hits("/events") == 3)
    }

    @Test func progressRestartsWithEachAttempt() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        let body = Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0) })
        let counter = Counter()
        server.route("/download") { _ in
            let first = counter.next() == 1
            return TestResponse(
                body: .drip(body, chunkSize: 10_000, interval: 0.02), fault: first ? .resetAfterBodyBytes(60_000) : nil)
        }
        var urlRequest = URLRequest(url: server.url("/download"))
        urlRequest.httpMethod = "GET"
        let request = ProgressRetry(urlRequest, policy: testPolicy(attempts: 2), progressInterval: 0)
        let reports = Locked<[Int64]>([])
        request.progressHandler = { progress in
            if progress.direction == .download { reports.withLock { $0.append(progress.completedBytes) } }
        }
        let ending = await run(request)
        #expect(ending?.data == body)
        #expect(server.hits("/download") == 2)
        let received = reports.withLock { $0 }
        let restart = received.indices.dropFirst().first { received[$0] < received[$0 - 1] }
        #expect(restart != nil, "progress went back to the start for attempt 2: \(received)")
        if let restart {
            #expect(received[restart - 1] >= 10_000 && received[restart - 1] <= 60_000, "attempt 1 got part of it")
        }
        #expect(received.last == 100_000)
        #expect(received.allSatisfy { $0 <= 100_000 }, "no attempt adds to the last one's count")
    }
}
