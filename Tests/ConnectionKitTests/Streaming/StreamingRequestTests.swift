import ConnectionKit
import ConnectionKitTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A server-sent events endpoint at a given URL, with test-sized settings.
class Feed: ServerSentEventsRequest, @unchecked Sendable {
    // Safe: every stored property is an immutable `let`.
    let target: URL
    let policy: RetryPolicy
    let elementLimit: Int
    let bufferLimit: Int
    let idleTimeout: TimeInterval
    let bodyLimit: Int64

    init(
        _ target: URL, policy: RetryPolicy = .none, elementLimit: Int = 1024 * 1024, bufferLimit: Int = 4096,
        idleTimeout: TimeInterval = 20, bodyLimit: Int64 = 128 * 1024 * 1024
    ) {
        (self.target, self.policy, self.elementLimit) = (target, policy, elementLimit)
        (self.bufferLimit, self.idleTimeout, self.bodyLimit) = (bufferLimit, idleTimeout, bodyLimit)
        super.init()
    }

    override var url: URL? { target }
    override var retryPolicy: RetryPolicy { policy }
    override var maximumElementSize: Int { elementLimit }
    override var maximumBufferedElements: Int { bufferLimit }
    override var timeoutInterval: TimeInterval { idleTimeout }
    override var maximumResponseBodySize: Int64 { bodyLimit }
}

/// Reconnects quickly: three attempts in a row without an event, 20 ms apart.
let quickReconnect = RetryPolicy(maximumAttempts: 3, initialBackoff: 0.02, jitter: 0)

@Suite("Streaming requests deliver elements in order and end once", .offThePool, .timeLimit(.minutes(2)))
struct StreamingRequestTests {
    @Test("events arrive in order through the element handler, then the completion with their count")
    func deliversInOrder() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/feed") { _ in
            .eventStream(["data: 1\n\n", "data: 2\n", "\ndata: 3\n\n"], interval: 0.02)
        }
        let request = Feed(server.url("/feed"))
        let recorder = StreamRecorder(request)
        request.start()
        await recorder.ended()
        #expect(recorder.elements.map(\.data) == ["1", "2", "3"])
        guard case .success(3)? = recorder.endings.first else {
            Issue.record("expected success with 3 elements, got \(recorder.endings)")
            return
        }
        #expect(recorder.endings.count == 1)
        #expect(!recorder.elementAfterEnding)
        let sent = try #require(server.receivedRequests("/feed").first)
        #expect(sent.header("Accept") == "text/event-stream")
        #expect(sent.header("Last-Event-ID") == nil)
    }

    @Test("elements() yields every event and ends after the last one")
    func asyncElements() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/feed") { _ in .eventStream(["event: a\ndata: 1\n\n", "data: 2\n\n"], interval: 0.01) }
        let request = Feed(server.url("/feed"))
        request.callbackQueue = testCallbackQueue
        var received: [ServerSentEvent] = []
        for try await event in request.elements() {
            received.append(event)
        }
        #expect(received == [ServerSentEvent(type: "a", data: "1"), ServerSentEvent(data: "2")])
        #expect(request.state == .finished)
    }

    @Test("a request run through elements() can run again with handlers: every element reaches the handler")
    func runAgainAfterElements() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        // The first run: three events at once (within the bound of 4). The second: more events than the
        // buffer holds, each sent once the handler took the one before (lockstep, so a busy callback queue
        // cannot fill the buffer): it fails unless every one of its elements leaves the buffer.
        let hits = Locked(0)
        let handled = DispatchSemaphore(value: 0)
        let second = (1...6).map { Data("data: \($0)\n\n".utf8) }
        server.route("/feed") { _ in
            guard hits.increment() > 1 else { return .eventStream(["data: 1\n\ndata: 2\n\ndata: 3\n\n"]) }
            return TestResponse(
                headers: [TestHeader("Content-Type", "text/event-stream")],
                body: .stream(interval: 0) { index in
                    if index > 0 { _ = handled.wait(timeout: .now() + 10) }
                    return index < second.count ? second[index] : nil
                })
        }
        let request = Feed(server.url("/feed"), bufferLimit: 4)
        request.callbackQueue = testCallbackQueue
        var first: [String] = []
        for try await event in request.elements() {
            first.append(event.data)
        }
        #expect(first == ["1", "2", "3"])
        let recorder = StreamRecorder(request)
        let record = request.elementHandler
        request.elementHandler = { event in
            record?(event)
            handled.signal()
        }
        request.start()
        await recorder.ended()
        #expect(recorder.elements.map(\.data) == ["1", "2", "3", "4", "5", "6"])
        guard case .success(6)? = recorder.endings.first else {
            Issue.record("expected success with 6 elements, got \(recorder.endings)")
            return
        }
    }

    @Test("the registry snapshot shows the element count while streaming; progress reports the bytes")
    func snapshotAndProgress() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/feed") { _ in .eventStream(["data: 1\n\n", "data: 2\n\n"]) }
        server.route("/slow") { _ in .heartbeats(interval: 0.05) }
        let request = Feed(server.url("/feed"))
        let progressed = Locked<Int64>(0)
        request.progressHandler = { progress in progressed.withLock { $0 = max($0, progress.completedBytes) } }
        let recorder = StreamRecorder(request)
        request.start()
        await recorder.wait { $0.elements.count == 2 }
        await recorder.ended()
        await testCallbackQueue.drain()
        #expect(progressed.withLock { $0 } == Int64("data: 1\n\ndata: 2\n\n".utf8.count))
        #expect(request.elementCount == 2)

        let live = Feed(server.url("/slow"))
        let liveRecorder = StreamRecorder(live)
        live.start()
        defer { live.cancel() }
        let snapshot = try #require(ConnectionRegistry.shared.snapshot().first { $0.identifier == live.identifier })
        #expect(snapshot.elementCount == 0)
        server.route("/plain") { _ in TestResponse(delayBeforeHeaders: 5) }
        let plain = FetchData(server.url("/plain"))
        plain.start()
        defer { plain.cancel() }
        let plainSnapshot = try #require(
            ConnectionRegistry.shared.snapshot().first { $0.identifier == plain.identifier })
        #expect(plainSnapshot.elementCount == nil)
        live.cancel()
        await liveRecorder.ended()
    }

    @Test("a 204 answer ends the stream with unacceptableStatusCode(204) and no reconnection")
    func noContent() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/feed") { _ in .status(204) }
        let request = Feed(server.url("/feed"), policy: quickReconnect)
        // A settle window of 50 reconnection backoffs: a reconnection after the ending shows in the hits.
        let recorder = StreamRecorder(request, settle: 1)
        request.start()
        let error = try await recorder.connectionError()
        #expect(error.statusCode == 204)
        #expect(server.hits("/feed") == 1)
    }

    @Test("a 2xx answer that is not text/event-stream fails as notAnEventStream, without reconnecting")
    func wrongContentType() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/feed") { _ in .text("data: 1\n\n") }
        let request = Feed(server.url("/feed"), policy: quickReconnect)
        // A settle window of 50 reconnection backoffs: a reconnection after the ending shows in the hits.
        let recorder = StreamRecorder(request, settle: 1)
        request.start()
        let error = try await recorder.connectionError()
        guard error.kind == .parsing, let underlying = error.underlyingError,
            case .notAnEventStream(let contentType)? = underlying as? ServerSentEventsError
        else {
            Issue.record("expected notAnEventStream, got \(error)")
            return
        }
        #expect(contentType == "text/plain; charset=utf-8")
        #expect(recorder.elements.isEmpty)
        #expect(server.hits("/feed") == 1)
    }

    @Test("a non-2xx answer is validated as any request's: its body kept, the status in the error")
    func errorStatus() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/feed") { _ in .status(404, body: "no feed") }
        let request = Feed(server.url("/feed"))
        let recorder = StreamRecorder(request)
        request.start()
        let error = try await recorder.connectionError()
        #expect(error.statusCode == 404)
        #expect(error.responseBody == Data("no feed".utf8))
    }

    @Test("an event larger than maximumElementSize fails with responseTooLarge after the events before it")
    func elementTooLarge() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        let big = String(repeating: "x", count: 4096)
        server.route("/feed") { _ in .eventStream(["data: small\n\n", "data: \(big)\n\n", "data: after\n\n"]) }
        let request = Feed(server.url("/feed"), elementLimit: 1024)
        let recorder = StreamRecorder(request)
        request.start()
        let error = try await recorder.connectionError()
        guard error.kind == .responseTooLarge, error.limit == 1024 else {
            Issue.record("expected responseTooLarge(1024), got \(error)")
            return
        }
        #expect(recorder.elements.map(\.data) == ["small"])
        #expect(!recorder.elementAfterEnding)
    }

    @Test("the in-memory body limit does not apply to a stream: 200 KiB of events pass a 1 KiB limit")
    func noTotalLimit() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        let event = Data("data: \(String(repeating: "y", count: 90))\n\n".utf8)
        server.route("/feed") { _ in
            var response = TestResponse.eventStream([])
            response.body = .stream(interval: 0, next: { $0 < 2000 ? event : nil })
            return response
        }
        let request = Feed(server.url("/feed"), bodyLimit: 1024)
        let recorder = StreamRecorder(request)
        request.start()
        await recorder.ended()
        guard case .success(2000)? = recorder.endings.first else {
            Issue.record("expected 2000 events, got \(recorder.endings)")
            return
        }
    }

    @Test("invalid UTF-8 in an event reaches the handler with U+FFFD replacement")
    func invalidUTF8() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/feed") { _ in
            var response = TestResponse.eventStream([])
            let bytes = Data("data: caf".utf8) + Data([0xC3]) + Data("!\n\n".utf8)
            response.body = .chunked([bytes])
            return response
        }
        let request = Feed(server.url("/feed"))
        let recorder = StreamRecorder(request)
        request.start()
        await recorder.ended()
        #expect(recorder.elements.map(\.data) == ["caf\u{FFFD}!"])
    }
}
