// StreamBench: figures for streaming responses (issue 16).
//
//   swift run -c release --package-path Benchmarks StreamBench [megabytes-for-the-slow-consumer] [urlsession|libcurl]
//
// Prints: events/s through SSEDecoder alone; events/s through a whole ServerSentEventsRequest on
// loopback (ConnectionKitTesting's server, on the transport given: URLSession by default); and peak RSS
// (VmHWM) while a stream of the given size (default 1024 MiB) flows into a consumer that takes 1 ms per
// MiB. Peak RSS is per process: run it once per transport.
import ConnectionKit
import ConnectionKitTesting
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A value shared between the consumer's queue and the main thread.
final class Box<Value>: @unchecked Sendable {
    // Safe: only touched under `lock`.
    private var value: Value
    private let lock = NSLock()
    init(_ value: Value) { self.value = value }
    func with<R>(_ body: (inout Value) -> R) -> R {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
}

func memoryFigure(_ field: String) -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
    for line in status.split(separator: "\n") where line.hasPrefix(field) {
        return (line.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0) / 1024
    }
    return 0
}

final class Firehose: ServerSentEventsRequest, @unchecked Sendable {
    // Safe: immutable lets.
    let target: URL
    let buffered: Int
    init(_ target: URL, buffered: Int) {
        (self.target, self.buffered) = (target, buffered)
        super.init()
    }
    override var url: URL? { target }
    override var retryPolicy: RetryPolicy { .none }
    override var maximumBufferedElements: Int { buffered }
    override var transport: ConnectionTransport { benchTransport }
}

/// One chunk of `perChunk` small events (about 24 bytes each).
func eventChunk(perChunk: Int, payload: Int = 10) -> Data {
    let event = "data: \(String(repeating: "e", count: payload))\n\n"
    return Data(String(repeating: event, count: perChunk).utf8)
}

// MARK: - 1. The decoder alone

func decoderAlone() throws {
    let chunk = eventChunk(perChunk: 1000)  // 18 KB, like URLSession's 16 KiB chunks
    let rounds = 2000
    var decoder = SSEDecoder()
    var count = 0
    let start = DispatchTime.now()
    for _ in 0..<rounds {
        count += try decoder.decode(chunk).count
    }
    let seconds = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
    let megabytes = Double(chunk.count * rounds) / 1_048_576
    print(
        String(
            format: "SSEDecoder alone: %d events in %.2f s = %.0f events/s (%.0f MiB/s)", count, seconds,
            Double(count) / seconds, megabytes / seconds))
}

// MARK: - 2. A whole request on loopback

func wholeRequest(server: TestServer, events: Int, buffered: Int) async {
    let perChunk = 1000
    let chunk = eventChunk(perChunk: perChunk)
    server.route("/firehose") { _ in
        var response = TestResponse.eventStream([])
        response.body = .stream(interval: 0, next: { $0 < events / perChunk ? chunk : nil })
        return response
    }
    let request = Firehose(server.url("/firehose"), buffered: buffered)
    request.callbackQueue = DispatchQueue(label: "consumer")
    let counted = Box(0)
    request.elementHandler = { _ in counted.with { $0 += 1 } }
    let start = DispatchTime.now()
    do {
        let total = try await request.value()
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
        print(
            String(
                format: "whole request (%@, loopback, buffer %d): %d events in %.2f s = %.0f events/s",
                benchTransport.name, buffered, total, seconds, Double(total) / seconds))
    } catch {
        print(
            "whole request (\(benchTransport), loopback, buffer \(buffered)): failed after \(counted.with { $0 }) events: \(error)"
        )
    }
}

// MARK: - 3. Peak memory into a slow consumer

func slowConsumer(server: TestServer, megabytes: Int) async {
    let chunk = eventChunk(perChunk: 16, payload: 1000)  // 16 events of 1 KB
    let chunks = megabytes * 1_048_576 / chunk.count
    server.route("/slow") { _ in
        var response = TestResponse.eventStream([])
        response.body = .stream(interval: 0, next: { $0 < chunks ? chunk : nil })
        return response
    }
    let request = Firehose(server.url("/slow"), buffered: 4096)
    request.callbackQueue = DispatchQueue(label: "slow consumer")
    let pendingBytes = Box(0)
    request.elementHandler = { event in
        // 1 ms per MiB consumed.
        let sleep = pendingBytes.with { bytes -> Bool in
            bytes += event.data.utf8.count
            guard bytes >= 1_048_576 else { return false }
            bytes -= 1_048_576
            return true
        }
        if sleep { Thread.sleep(forTimeInterval: 0.001) }
    }
    let before = memoryFigure("VmRSS:")
    let start = DispatchTime.now()
    let outcome: String
    do {
        let total = try await request.value()
        outcome = "\(total) events"
    } catch {
        outcome = "failed after \(request.elementCount) events: \(error)"
    }
    let seconds = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
    print(
        String(
            format:
                "%d MiB into a 1 ms/MiB consumer (%@): %@ in %.1f s; RSS before %d MiB, peak (VmHWM) %d MiB",
            megabytes, benchTransport.name, outcome, seconds, before, memoryFigure("VmHWM:")))
}

let megabytes = CommandLine.arguments.dropFirst().first.flatMap { Int($0) } ?? 1024
let benchTransport: ConnectionTransport =
    try CommandLine.arguments.dropFirst(2).first == "libcurl" ? .libcurl() : .urlSession
try decoderAlone()
let server = try TestServer.started()
// First, so that the peak (VmHWM, process-wide) is this run's.
await slowConsumer(server: server, megabytes: megabytes)
await wholeRequest(server: server, events: 1_000_000, buffered: 4096)
await wholeRequest(server: server, events: 1_000_000, buffered: 1 << 22)
server.stop()
