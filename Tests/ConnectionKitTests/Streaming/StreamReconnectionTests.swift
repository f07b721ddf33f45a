import ConnectionKit
import ConnectionKitTesting
import Foundation
import Testing

@Suite("Server-sent events reconnect as EventSource does", .offThePool, .timeLimit(.minutes(10)))
struct StreamReconnectionTests {
    @Test("after a drop mid-event the request reconnects with Last-Event-ID and gets every event once")
    func resumesWithLastEventID() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        let data = ["a", "b", "c", "d", "e"]
        server.route("/feed") { .resumableEventStream(data, answering: $0, perConnection: 2) }
        let request = Feed(server.url("/feed"), policy: quickReconnect)
        let recorder = StreamRecorder(request)
        request.start()
        await recorder.ended()
        #expect(recorder.elements.map(\.data) == data)
        #expect(recorder.elements.map(\.lastEventID) == ["1", "2", "3", "4", "5"])
        guard case .success(5)? = recorder.endings.first else {
            Issue.record("expected success with 5 events, got \(recorder.endings)")
            return
        }
        let sentIDs = server.receivedRequests("/feed").map { $0.header("Last-Event-ID") }
        #expect(sentIDs == [nil, "2", "4"])
        #expect(request.lastEventID == "5")
    }

    @Test("the server's retry time replaces the policy's backoff", .exclusive)
    func honoursServerRetry() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/feed") { .resumableEventStream(["a", "b"], answering: $0, perConnection: 1, retry: 300) }
        // A backoff of a minute: only the server's 300 ms lets the test end in time.
        let slowPolicy = RetryPolicy(maximumAttempts: 3, initialBackoff: 60, jitter: 0)
        let request = Feed(server.url("/feed"), policy: slowPolicy)
        let recorder = StreamRecorder(request)
        request.start()
        await recorder.ended(within: 20)
        #expect(recorder.elements.map(\.data) == ["a", "b"])
        #expect(request.reconnectionTime == 0.3)
        let times = server.receivedRequests("/feed").map(\.receivedAt)
        try #require(times.count == 2)
        let gap = times[1].timeIntervalSince(times[0])
        #expect(gap >= 0.3, "reconnected after \(gap) s")
        #expect(gap < 10, "reconnected after \(gap) s")
    }

    @Test("reconnection stops after the policy's attempts in a row without an event")
    func stopsAfterAttempts() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/feed") { _ in .eventStream(["data: never finished"], thenDrop: true) }
        let request = Feed(server.url("/feed"), policy: quickReconnect)
        // A settle window of 50 reconnection backoffs: a fourth attempt after the ending shows in the hits.
        let recorder = StreamRecorder(request, settle: 1)
        request.start()
        let error = try await recorder.connectionError()
        guard case .transport = error.kind else {
            Issue.record("expected a transport error, got \(error)")
            return
        }
        #expect(server.hits("/feed") == 3)
        #expect(recorder.elements.isEmpty)
    }

    @Test("the policy's deadline bounds the whole run, reconnections included", .exclusive)
    func deadline() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/feed") { _ in .eventStream(["data: x\n\n"], thenDrop: true) }
        // Every connection brings an event, so without the deadline the run never ends (the attempts
        // counter restarts at each event): a bound of 20 s proves the deadline and holds on a loaded machine.
        // Every wait is at most 0.5 s (the reconnection floor, and the policy's cap on the backoff that
        // grows while connections keep dropping), so a run that ends early can end at most 0.5 s early.
        // The deadline leaves room for several connections even when the first is slow to come (CI: at the
        // start of a test run, a deadline of 2 s saw one).
        let policy = RetryPolicy(
            maximumAttempts: 1000, initialBackoff: 0.05, maximumBackoff: 0.5, jitter: 0, maximumRetryAfter: 0.5,
            deadline: 4)
        let request = Feed(server.url("/feed"), policy: policy)
        let recorder = StreamRecorder(request)
        request.start()
        let error = try await recorder.connectionError(within: 30)
        // The request's own clock: the awaiting task may resume late on a loaded machine.
        let elapsed = try #require(request.dateFinished).timeIntervalSince(try #require(request.dateStarted))
        // The deadline during an attempt is a timeout; during a wait, the last attempt's error (documented).
        #expect(error.isTimedOut || { if case .transport = error.kind { true } else { false } }())
        #expect(elapsed >= 3.5, "ended after \(elapsed) s, before the deadline less the longest wait (0.5 s)")
        #expect(elapsed < 20, "ended after \(elapsed) s")
        #expect(recorder.elements.count >= 2, "every connection brings one event")
    }

    @Test("a server that ends the body cleanly completes the run: no reconnection")
    func cleanEnd() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/feed") { _ in .eventStream(["id: 9\ndata: last\n\n"]) }
        let request = Feed(server.url("/feed"), policy: quickReconnect)
        // A settle window of 50 reconnection backoffs: a reconnection after the ending shows in the hits.
        let recorder = StreamRecorder(request, settle: 1)
        request.start()
        await recorder.ended()
        guard case .success(1)? = recorder.endings.first else {
            Issue.record("expected success with 1 event, got \(recorder.endings)")
            return
        }
        #expect(recorder.elements.map(\.data) == ["last"])
        #expect(server.hits("/feed") == 1)
        #expect(recorder.endings.count == 1)
    }

    @Test("a 900 kB id is ignored: the reconnection sends the previous Last-Event-ID and the stream goes on")
    func oversizedIDKeepsThePreviousOne() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        let connections = Locked(0)
        let hugeID = String(repeating: "7", count: 900_000)
        server.route("/feed") { _ in
            if connections.increment() == 1 {
                return .eventStream(["id: 1\ndata: a\n\n", "id: \(hugeID)\ndata: b\n\n"], thenDrop: true)
            }
            return .eventStream(["data: c\n\n"])
        }
        let request = Feed(server.url("/feed"), policy: quickReconnect)
        let recorder = StreamRecorder(request)
        request.start()
        await recorder.ended()
        guard case .success(3)? = recorder.endings.first else {
            Issue.record("expected success with 3 events, got \(recorder.endings)")
            return
        }
        #expect(recorder.elements.map(\.data) == ["a", "b", "c"])
        #expect(recorder.elements.map(\.lastEventID) == ["1", "1", "1"])
        #expect(server.receivedRequests("/feed").map { $0.header("Last-Event-ID") } == [nil, "1"])
        #expect(request.lastEventID == "1")
    }

    @Test("a lastEventID set before the start is sent on the first connection")
    func presetLastEventID() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/feed") { .resumableEventStream(["a", "b", "c"], answering: $0, perConnection: 5) }
        let request = Feed(server.url("/feed"))
        request.lastEventID = "2"
        let recorder = StreamRecorder(request)
        request.start()
        await recorder.ended()
        #expect(recorder.elements.map(\.data) == ["c"])
        #expect(server.receivedRequests("/feed").first?.header("Last-Event-ID") == "2")
    }
}
