import ConnectionKitTesting
import Foundation
import Testing

@testable import ConnectionKit

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The two middleware ConnectionKit ships, against a real server: W3C Trace Context propagation and
/// record/replay.
@Suite("Shipped middleware: trace context, record and replay", .offThePool, .timeLimit(.minutes(5)))
struct ShippedMiddlewareTests {
    @Test("each attempt sends a traceparent in the caller's trace with a span id of its own, and its tracestate")
    func traceContextPerAttempt() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        let count = Locked(0)
        server.route("/traced") { _ in
            count.withLock {
                $0 += 1
                return $0
            } == 1 ? .status(503) : .text("ok")
        }
        let spans = Locked<[[UInt8]]>([])
        let client = ConnectionClient.ownForTests(
            label: "trace-context", settings: .init(retryPolicy: RetryPolicy(initialBackoff: 0, jitter: 0)),
            middleware: [TraceContextMiddleware(spanStarted: { _, span in spans.withLock { $0.append(span) } })])
        let parent = try #require(
            TraceContext(
                traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", tracestate: "vendor=abc"))
        let request = Fetch(server.url("/traced"))
        let body = await TraceContext.$current.withValue(parent) {
            try? await within(30, "the run") { try? await request.value(on: client) }
        }
        #expect(body.flatMap { $0 }.map { String(decoding: $0, as: UTF8.self) } == "ok")
        let sent = server.receivedRequests("/traced")
        #expect(sent.count == 2)
        let parts = sent.compactMap { $0.header("traceparent")?.split(separator: "-").map(String.init) }
        #expect(parts.count == 2)
        #expect(parts.allSatisfy { $0.count == 4 && $0[0] == "00" && $0[3] == "01" })
        #expect(parts.allSatisfy { $0[1] == "4bf92f3577b34da6a3ce929d0e0e4736" }, "the caller's trace")
        #expect(parts.allSatisfy { $0[2] != "00f067aa0ba902b7" && $0[2].count == 16 }, "a span of the attempt's own")
        #expect(Set(parts.map { $0[2] }).count == 2, "a new span id per attempt")
        #expect(parts.map { $0[2] } == spans.withLock { $0.map(SHA256.hex) }, "spanStarted heard each span")
        #expect(sent.allSatisfy { $0.header("tracestate") == "vendor=abc" })
        try await within(30, "the client's shutdown") { await client.shutdown() }
    }

    @Test("without a parent a run starts a trace of its own, shared by its attempts; another run gets another")
    func aNewTracePerRun() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/root") { _ in .text("ok") }
        let client = ConnectionClient.ownForTests(label: "trace-root", middleware: [TraceContextMiddleware()])
        for _ in 0..<2 {
            _ = try #require(await within(30, "a run") { try? await Fetch(server.url("/root")).value(on: client) })
        }
        let traces = server.receivedRequests("/root").compactMap {
            $0.header("traceparent").flatMap { TraceContext(traceparent: $0)?.traceID }
        }
        #expect(traces.count == 2)
        #expect(Set(traces).count == 2)
        #expect(server.receivedRequests("/root").allSatisfy { $0.header("tracestate") == nil })
        try await within(30, "the client's shutdown") { await client.shutdown() }
    }

    @Test(
        "a traceparent that is not valid W3C is refused as a parent",
        arguments: [
            "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
            "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra", "00-4bf92f-00f067aa0ba902b7-01", "",
        ])
    func invalidParentsAreRefused(traceparent: String) {
        #expect(TraceContext(traceparent: traceparent) == nil)
    }

    @Test("recorded responses replay offline byte for byte; no request header reaches the folder")
    func recordThenReplay() async throws {
        let server = try TestServer.started()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ck-record-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        server.route("/api/items") { _ in
            TestResponse(
                status: 201, headers: [TestHeader("Content-Type", "application/json"), TestHeader("X-Page", "1")],
                body: .data(Data("[1,2,3]".utf8)))
        }
        let recorder = ConnectionClient.ownForTests(
            label: "record", settings: .init(authorization: .bearer("do-not-record-me")),
            middleware: [RecordReplayMiddleware(folder: folder, mode: .record)])
        let recorded = try #require(
            await within(30, "the recording run") { try? await Fetch(server.url("/api/items")).value(on: recorder) })
        let target = server.url("/api/items")
        server.stop()
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        #expect(files.count == 1)
        let text = try String(contentsOf: folder.appendingPathComponent(try #require(files.first)), encoding: .utf8)
        #expect(!text.contains("do-not-record-me"))

        let player = ConnectionClient.ownForTests(
            label: "replay", middleware: [RecordReplayMiddleware(folder: folder, mode: .replay)])
        let request = Fetch(target)
        let outcome = try await within(30, "the replay") { () -> Result<Data, any Error> in
            do { return .success(try await request.value(on: player)) } catch { return .failure(error) }
        }
        let replayed = try outcome.get()
        #expect(replayed == recorded)
        #expect(String(decoding: replayed, as: UTF8.self) == "[1,2,3]")
        #expect(request.responseSource == .middleware)
        #expect(request.response.withLock { $0?.statusCode } == 201)
        #expect(request.response.withLock { $0?.value(forHTTPHeaderField: "X-Page") } == "1")
        try await within(30, "the clients' shutdown") {
            await recorder.shutdown()
            await player.shutdown()
        }
    }

    @Test("a replay of a request with no recording fails loudly, naming it, and sends nothing")
    func aMissingRecordingFails() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/unrecorded") { _ in .text("network") }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ck-replay-\(UUID().uuidString)")
        let player = ConnectionClient.ownForTests(
            label: "replay-missing", middleware: [RecordReplayMiddleware(folder: folder, mode: .replay)])
        let error = try await failure(of: Fetch(server.url("/unrecorded?token=abc")), on: player)
        #expect(error.kind == .middleware)
        #expect(error.middlewareName == "RecordReplayMiddleware")
        let missing = try #require(error.underlyingError as? RecordReplayMiddleware.MissingRecording)
        #expect(missing.method == "GET")
        #expect(missing.url.hasSuffix("/unrecorded?token=abc"))
        #expect(server.hits("/unrecorded") == 0)
        try await within(30, "the client's shutdown") { await player.shutdown() }
    }

    @Test("a damaged recording is a typed error, not a crash or a wrong answer")
    func aDamagedRecordingIsRefused() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/damaged") { _ in .text("fine") }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ck-damaged-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let recorder = ConnectionClient.ownForTests(
            label: "record-damaged", middleware: [RecordReplayMiddleware(folder: folder, mode: .record)])
        _ = try #require(
            await within(30, "the recording") { try? await Fetch(server.url("/damaged")).value(on: recorder) })
        let file = folder.appendingPathComponent(
            try #require(try FileManager.default.contentsOfDirectory(atPath: folder.path).first))
        let whole = try Data(contentsOf: file)
        try whole.prefix(whole.count / 2).write(to: file)
        let player = ConnectionClient.ownForTests(
            label: "replay-damaged", middleware: [RecordReplayMiddleware(folder: folder, mode: .replay)])
        let error = try await failure(of: Fetch(server.url("/damaged")), on: player)
        #expect(error.kind == .middleware)
        #expect(error.underlyingError is RecordReplayMiddleware.UnreadableRecording)
        #expect(server.hits("/damaged") == 1, "only the recording run was sent")
        try await within(30, "the clients' shutdown") {
            await recorder.shutdown()
            await player.shutdown()
        }
    }
}
