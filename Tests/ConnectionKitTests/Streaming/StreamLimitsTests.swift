import ConnectionKit
import ConnectionKitTesting
import Foundation
import Testing

private struct Entry: Decodable, Sendable, Equatable {
    let n: Int
}

private final class Entries: JSONLinesRequest<Entry>, @unchecked Sendable {
    // Safe: every stored property is an immutable `let`.
    let target: URL
    let skips: Bool

    init(_ target: URL, skips: Bool = false) {
        (self.target, self.skips) = (target, skips)
        super.init()
    }

    override var url: URL? { target }
    override var skipsInvalidLines: Bool { skips }
}

private final class Lines: LineStreamRequest, @unchecked Sendable {
    // Safe: every stored property is an immutable `let`.
    let target: URL
    init(_ target: URL) {
        self.target = target
        super.init()
    }
    override var url: URL? { target }
}

/// A feed pinned to URLSession, which cannot pause a transfer.
private final class FeedOverURLSession: Feed, @unchecked Sendable {
    override var transport: ConnectionTransport { .urlSession }
}

/// A route streaming `count` events of `size` bytes of data as fast as the socket takes them.
private func fastEvents(_ server: TestServer, path: String, count: Int, size: Int) {
    let event = Data("data: \(String(repeating: "z", count: size))\n\n".utf8)
    server.route(path) { _ in
        var response = TestResponse.eventStream([])
        response.body = .stream(interval: 0, next: { $0 < count ? event : nil })
        return response
    }
}

@Suite("Streams: JSON lines, idle time, and the bound on a slow consumer", .offThePool, .timeLimit(.minutes(10)))
struct StreamLimitsTests {
    @Test("JSONLinesRequest decodes each line and ignores empty ones")
    func jsonLines() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/log") { _ in
            TestResponse(body: .chunked([Data("{\"n\":1}\n\n{\"n\"".utf8), Data(":2}\n{\"n\":3}\n".utf8)]))
        }
        let request = Entries(server.url("/log"))
        let recorder = StreamRecorder(request)
        request.start()
        await recorder.ended()
        #expect(recorder.elements == [Entry(n: 1), Entry(n: 2), Entry(n: 3)])
        #expect(server.receivedRequests("/log").first?.header("Accept") == "application/x-ndjson")
    }

    @Test("a JSON line that does not decode fails the request as parsing, naming the line number")
    func jsonLinesError() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/log") { _ in .text("{\"n\":1}\n{\"n\":2}\n{oops}\n{\"n\":4}\n") }
        let request = Entries(server.url("/log"))
        let recorder = StreamRecorder(request)
        request.start()
        let error = try await recorder.connectionError()
        guard error.kind == .parsing, let underlying = error.underlyingError,
            let lineError = underlying as? JSONLinesError
        else {
            Issue.record("expected a JSONLinesError, got \(error)")
            return
        }
        #expect(lineError.lineNumber == 3)
        #expect(recorder.elements == [Entry(n: 1), Entry(n: 2)])
    }

    @Test("with skipsInvalidLines the bad line is dropped and the stream completes")
    func jsonLinesSkip() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/log") { _ in .text("{\"n\":1}\n{oops}\n{\"n\":3}") }
        let request = Entries(server.url("/log"), skips: true)
        let recorder = StreamRecorder(request)
        request.start()
        await recorder.ended()
        #expect(recorder.elements == [Entry(n: 1), Entry(n: 3)])
        guard case .success(2)? = recorder.endings.first else {
            Issue.record("expected success with 2 elements, got \(recorder.endings)")
            return
        }
    }

    @Test("LineStreamRequest delivers plain lines")
    func plainLines() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/tail") { _ in .eventStream(["one\r\ntw", "o\n\nthree"], interval: 0.01) }
        let request = Lines(server.url("/tail"))
        let recorder = StreamRecorder(request)
        request.start()
        await recorder.ended()
        #expect(recorder.elements == ["one", "two", "", "three"])
    }

    @Test("heartbeat comments keep a stream without events alive past its idle timeout", .exclusive)
    func heartbeatsCountAsActivity() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/quiet") { _ in .heartbeats(interval: 0.1) }
        // A heartbeat every 0.1 s against a 3 s timeout: a margin of thirty, for loaded machines and sanitizers
        // (an AddressSanitizer run beside the rest of the suite once delivered nothing for more than 1 s).
        let request = Feed(server.url("/quiet"), idleTimeout: 3)
        let recorder = StreamRecorder(request)
        request.start()
        // Three timeouts' worth of heartbeats: the request must still be running.
        let stillRunning = await waitForSignal(timeout: 9) { _ in }
        #expect(!stillRunning)
        #expect(request.state == .running)
        #expect(recorder.endings.isEmpty)
        #expect(recorder.elements.isEmpty)
        request.cancel()
        #expect(try await recorder.connectionError().isCancelled)
    }

    @Test("a stream silent for longer than its idle timeout fails with timedOut", .exclusive)
    func idleTimeout() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/stalls") { _ in
            var response = TestResponse.eventStream([])
            response.body = .stream(interval: 30, next: { $0 < 2 ? Data("data: \($0)\n\n".utf8) : nil })
            return response
        }
        // The second event would come after 30 s: the idle timer, 1 s after the first, must end it first.
        let request = Feed(server.url("/stalls"), idleTimeout: 1)
        let recorder = StreamRecorder(request)
        let firstEvent = Locked<Date?>(nil)
        let recordElement = request.elementHandler
        request.elementHandler = { event in
            firstEvent.withLock { $0 = $0 ?? Date() }
            recordElement?(event)
        }
        request.start()
        let error = try await recorder.connectionError()
        let silence = Date().timeIntervalSince(try #require(firstEvent.withLock { $0 }))
        #expect(error.isTimedOut)
        #expect(recorder.elements.map(\.data) == ["0"])
        // Not before the timeout; and late by at most the slack a loaded machine needs (a timer three
        // times late fails), far from the 30 s the server's next event would take.
        #expect(silence >= 1 - clockTolerance - 0.1, "ended \(silence) s after the last event")
        #expect(silence <= 1 + schedulingSlack, "ended \(silence) s after the last event")
    }

    @Test(
        "a long fast stream into a slow consumer fails with streamBufferFull on URLSession, memory bounded",
        .exclusive)
    func slowConsumer() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        // 1 GiB offered, 16 events of 1 KB every millisecond (about 16 MB/s, below what URLSession reads
        // ahead on its own); the consumer takes 1 ms per event (1 MB/s).
        let chunk = Data(String(repeating: "data: \(String(repeating: "z", count: 1000))\n\n", count: 16).utf8)
        server.route("/firehose") { _ in
            var response = TestResponse.eventStream([])
            response.body = .stream(interval: 0.001, next: { $0 < 65_536 ? chunk : nil })
            return response
        }
        // Over URLSession whatever the default: libcurl pauses the socket instead (CurlFlowControlTests).
        let request = FeedOverURLSession(server.url("/firehose"), bufferLimit: 64)
        // Its own queue: the sleeping consumer must not delay other tests' callbacks.
        let recorder = StreamRecorder(request, queue: DispatchQueue(label: "slow consumer"))
        request.elementHandler = { _ in Thread.sleep(forTimeInterval: 0.001) }  // the slow consumer
        // The true peak (VmHWM after resetting it), not samples before and after: a spike that is freed
        // again before the ending counts too.
        try #require(ProcessMemory.resetPeak(), "cannot reset VmHWM through /proc/self/clear_refs")
        let baseline = try #require(ProcessMemory.kibibytes("VmRSS"))
        request.start()
        let error = try await recorder.connectionError(within: 60)
        let peak = try #require(ProcessMemory.kibibytes("VmHWM"))
        guard error.kind == .streamBufferFull, let limit = error.limit else {
            Issue.record("expected streamBufferFull, got \(error)")
            return
        }
        #expect(limit == 64)
        #expect(request.elementCount < 64 + 200, "received \(request.elementCount) before failing")
        // VmHWM is the whole test process's: tests running beside this one (not exclusive) allocate too, and
        // a loaded CI run saw 91 MiB. Unbounded, URLSession's read-ahead would hold most of the 1 GiB
        // offered (16 MB/s for the 60 s the test allows); the element count above is the direct check.
        #expect(peak - baseline < 128 * 1024, "the peak resident size grew by \(peak - baseline) KiB")
    }
}
