import ConnectionKitTesting
import Foundation
import Testing

@testable import ConnectionKit

/// Retries a 503 once, quickly.
final class RetryProbe: Probe, @unchecked Sendable {  // Safe: no state of its own.
    override var retryPolicy: RetryPolicy {
        var policy = RetryPolicy.default
        policy.initialBackoff = 0.01
        policy.jitter = 0
        return policy
    }
}

@Suite(.offThePool, .serialized, .exclusive, .timeLimit(.minutes(20))) struct RegistryEventTests {
    /// Collects the events of requests of class `typeName` until one of them ends.
    private func collect(_ stream: AsyncStream<ConnectionEvent>, typeName: String) -> Task<[ConnectionEvent], Never> {
        Task {
            var events: [ConnectionEvent] = []
            for await event in stream where event.snapshot.typeName == typeName {
                events.append(event)
                if event.kind.isEnd { break }
            }
            return events
        }
    }

    @Test func snapshotAndEventsCarryTheRightFieldsInTheRightOrder() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        let body = Data(repeating: 0x61, count: 64 * 1024)
        server.route("POST", "/upload") { _ in
            TestResponse(body: .drip(body, chunkSize: 8 * 1024, interval: 0.02))
        }
        let stream = ConnectionRegistry.shared.events
        let collector = collect(stream, typeName: "EventProbe")
        let request = EventProbe(server.url("/upload?page=2"), method: .post, body: Data("hello".utf8))
        let endings = EndingRecorder()
        endings.track(request)
        let before = Date()
        request.start()

        let live = ConnectionRegistry.shared.snapshot().first { $0.identifier == request.identifier }
        #expect(live?.typeName == "EventProbe")
        #expect(live?.method == "POST")
        #expect(live?.state == .running)
        #expect(live.map { $0.dateStarted! >= before } == true)
        guard await endings.ended() else { return }
        let events = await collector.value

        #expect(events.first?.kind.name == "started")
        #expect(events.last?.kind.name == "finished")
        #expect(events.allSatisfy { $0.snapshot.identifier == request.identifier })
        let names = events.map(\.kind.name)
        #expect(Set(names.dropFirst().dropLast()).isSubset(of: ["sending", "progressed"]), "\(names)")
        #expect(names.filter { $0 == "sending" }.count == 1, "one transfer, one sending event: \(names)")
        #expect(names.dropFirst().first == "sending", "the URL is known before any byte moves: \(names)")
        #expect(zip(events, events.dropFirst()).allSatisfy { $0.date <= $1.date })

        let started = events.first?.snapshot
        #expect(started?.state == .running)
        #expect(started?.method == "POST", "the class's method before the first attempt is built")
        #expect(started?.attempt == 0)
        #expect(started?.redactedURL == nil, "started comes before the first attempt is built")

        // What the inspector's live list shows for a request whose server has sent nothing yet.
        let sending = events.first { $0.kind.name == "sending" }?.snapshot
        #expect(sending?.redactedURL == server.url("/upload?page=2").absoluteString)
        #expect(sending?.attempt == 1)
        #expect(sending?.method == "POST")
        #expect(sending?.bytesSent == 0 && sending?.bytesReceived == 0)

        let downloads = events.compactMap { event -> TransferProgress? in
            if case .progressed(let progress) = event.kind, progress.direction == .download { return progress }
            return nil
        }
        #expect(!downloads.isEmpty)
        #expect(downloads.last?.completedBytes == Int64(body.count))
        #expect(zip(downloads, downloads.dropFirst()).allSatisfy { $0.completedBytes <= $1.completedBytes })

        let end = events.last?.snapshot
        if case .finished(let status) = events.last?.kind { #expect(status == 200) }
        #expect(end?.state == .finished)
        #expect(end?.method == "POST")
        #expect(end?.redactedURL == server.url("/upload?page=2").absoluteString)
        #expect(end?.attempt == 1)
        #expect(end?.statusCode == 200)
        #expect(end?.bytesReceived == Int64(body.count))
        #expect(end?.bytesExpectedToReceive == Int64(body.count))
        #expect(end?.bytesSent == 5)
        #expect(end.map { $0.elapsed > 0 } == true)
        #expect(end?.dateStarted == request.dateStarted)
        #expect(events.last?.description == "EventProbe \(request.identifier) finished")
    }

    @Test func aRetryIsReportedBetweenStartAndEnd() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/flaky") { _ in server.hits("/flaky") <= 1 ? .status(503, body: "busy") : .text("ok") }
        let stream = ConnectionRegistry.shared.events
        let collector = collect(stream, typeName: "RetryProbe")
        let request = RetryProbe(server.url("/flaky"))
        let endings = EndingRecorder()
        endings.track(request)
        request.start()
        guard await endings.ended() else { return }
        let events = await collector.value.filter { $0.kind.name != "progressed" }
        #expect(events.map(\.kind.name) == ["started", "sending", "retried", "sending", "finished"])
        #expect(events.filter { $0.kind.name == "sending" }.map(\.snapshot.attempt) == [1, 2])
        if case .retried(let attempt, _, let error) = events.dropFirst(2).first?.kind {
            #expect(attempt == 2)
            #expect(error.statusCode == 503)
        }
        #expect(events.last?.snapshot.attempt == 2)
    }

    @Test func severalListenersEachGetEveryEndEvent() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/ok") { _ in .text("ok") }
        let first = collect(ConnectionRegistry.shared.events, typeName: "EventProbe")
        let second = collect(ConnectionRegistry.shared.events, typeName: "EventProbe")
        let request = EventProbe(server.url("/ok"))
        let endings = EndingRecorder()
        endings.track(request)
        request.start()
        guard await endings.ended() else { return }
        let a = await first.value
        let b = await second.value
        #expect(a.first?.kind.name == "started" && a.last?.kind.name == "finished")
        #expect(a.map(\.kind.name) == b.map(\.kind.name))
    }

    /// A running GET of class `typeName`, as the events of a listener fed by hand carry it.
    private func runningSnapshot(typeName: String) -> ConnectionSnapshot {
        ConnectionSnapshot(
            identifier: UUID(), typeName: typeName, method: "GET", redactedURL: nil, state: .running,
            dateStarted: Date(), elapsed: 0, bytesSent: 0, bytesExpectedToSend: nil, bytesReceived: 0,
            bytesExpectedToReceive: nil, attempt: 1, statusCode: nil)
    }

    @Test func aSlowListenerDropsProgressEventsButNeverALastReportOrOtherEvents() async {
        let listener = EventListener()
        let snapshot = runningSnapshot(typeName: "EventProbe")
        listener.push(ConnectionEvent(kind: .started, snapshot: snapshot, date: Date()))
        for index in 0..<1000 {
            let progress = TransferProgress(direction: .download, completedBytes: Int64(index), expectedBytes: nil)
            listener.push(ConnectionEvent(kind: .progressed(progress), snapshot: snapshot, date: Date()))
        }
        // The direction's last report, pushed while the buffer is full, is kept all the same.
        let last = TransferProgress(direction: .download, completedBytes: 1000, expectedBytes: 1000)
        listener.push(ConnectionEvent(kind: .progressed(last), snapshot: snapshot, date: Date()), last: true)
        listener.push(ConnectionEvent(kind: .cancelled, snapshot: snapshot, date: Date()))
        listener.close()
        var events: [ConnectionEvent] = []
        while let event = await listener.next() { events.append(event) }
        let names = events.map(\.kind.name)
        #expect(names.first == "started")
        #expect(names.last == "cancelled")
        #expect(names.filter { $0 == "progressed" }.count == ConnectionRegistry.eventBufferLimit + 1)
        let lastSeen = events.dropLast().last.flatMap { event -> Int64? in
            if case .progressed(let progress) = event.kind { return progress.completedBytes }
            return nil
        }
        #expect(lastSeen == 1000, "the last report, after the 256 kept")
    }

    @Test func aListenerThatFellBehindStillGetsTheReportOfTheLastBytes() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        let body = Data(repeating: 0x62, count: 32 * 1024)
        server.route("/bytes") { _ in TestResponse(body: .drip(body, chunkSize: 4 * 1024, interval: 0.01)) }
        let (stream, id) = ConnectionRegistry.shared.makeEventStream()
        let listener = try #require(ConnectionRegistry.shared.listener(id))
        // The listener has not read a thing: its buffer is full of another request's progress.
        let filler = runningSnapshot(typeName: "Filler")
        for index in 0..<ConnectionRegistry.eventBufferLimit {
            let progress = TransferProgress(direction: .download, completedBytes: Int64(index), expectedBytes: nil)
            listener.push(ConnectionEvent(kind: .progressed(progress), snapshot: filler, date: Date()))
        }
        let request = EventProbe(server.url("/bytes"))
        let endings = EndingRecorder()
        endings.track(request)
        request.start()
        guard await endings.ended() else { return }
        var downloads: [Int64] = []
        for await event in stream where event.snapshot.identifier == request.identifier {
            if case .progressed(let progress) = event.kind, progress.direction == .download {
                downloads.append(progress.completedBytes)
            }
            if event.kind.isEnd { break }
        }
        #expect(downloads == [Int64(body.count)], "only the report of the last bytes finds room")
    }

    @Test func aListenerThatStopsListeningIsForgotten() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/ok") { _ in .text("ok") }
        var id: UUID?
        do {
            let (stream, listenerID) = ConnectionRegistry.shared.makeEventStream()
            id = listenerID
            #expect(ConnectionRegistry.shared.listenerIDs.contains(listenerID))
            let request = EventProbe(server.url("/ok"))
            request.start()
            for await event in stream where event.snapshot.typeName == "EventProbe" {
                _ = event
                break
            }
        }
        #expect(id.map { !ConnectionRegistry.shared.listenerIDs.contains($0) } == true)
    }
}
