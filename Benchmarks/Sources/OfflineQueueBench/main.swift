// OfflineQueueBench: the offline queue's throughput on this machine, against the loopback TestServer.
//
//     swift run -c release --package-path Benchmarks OfflineQueueBench [options]
//     Benchmarks/offline-queue.sh           (the same, plus fsyncs per acknowledged write counted with strace)
//
// Options: --writes N (default 4000) writes per enqueue row; --drain-writes N (default 2000) writes per drain
// row; --producers 1,16 (threads calling `enqueue` at once); --in-flight 1,8 (the queue's
// `maximumInFlight` for the drain rows); --only enqueue|drain; --rounds N (default 3; the median is printed,
// then every round).
//
// Enqueue rows: a fresh queue, suspended so that nothing is sent, and P threads each enqueueing N/P writes
// of a 64-byte body; writes per second from the first call to the last return. Drain rows: N writes queued
// first, then a server started and the queue resumed; writes per second from the resume to the last
// delivered handler call. The queue lives in `$TMPDIR` (the system temporary folder), on the same disk as a
// real app's would be when TMPDIR is not a tmpfs.
import ConnectionKit
import ConnectionKitTesting
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One queued write: a POST with a small text body and bearer credentials, as an app defines it.
final class BenchWrite: ConnectionRequest<Data>, @unchecked Sendable {
    // Safe: immutable stored properties only.
    let base: URL
    let index: Int

    init(base: URL, index: Int) {
        self.base = base
        self.index = index
        super.init()
    }

    override var url: URL? { base.appendingPathComponent("writes") }
    override var httpMethod: HTTPMethod { .post }
    override var bodyData: Data? { Data(String(format: "write-%058d", index).utf8) }
    override var requestHeaderFields: [String: String] { ["Content-Type": "text/plain"] }
    override var authorization: Authorization? { .bearer("bench-token") }
}

struct Options {
    var writes = 4_000
    var drainWrites = 2_000
    var producers = [1, 16]
    var inFlight = [1, 8]
    var only: String?
    var rounds = 3

    init(_ arguments: [String]) {
        var iterator = arguments.dropFirst().makeIterator()
        while let argument = iterator.next() {
            let value = iterator.next() ?? ""
            let numbers = value.split(separator: ",").compactMap { Int($0) }
            switch argument {
            case "--writes": writes = numbers.first ?? writes
            case "--drain-writes": drainWrites = numbers.first ?? drainWrites
            case "--producers": producers = numbers.isEmpty ? producers : numbers
            case "--in-flight": inFlight = numbers.isEmpty ? inFlight : numbers
            case "--only": only = value
            case "--rounds": rounds = max(1, numbers.first ?? rounds)
            default:
                FileHandle.standardError.write(Data("OfflineQueueBench: unknown option \(argument)\n".utf8))
                exit(2)
            }
        }
    }
}

/// Counts delivered writes and signals when all arrived.
final class Countdown: @unchecked Sendable {
    // Safe: `remaining` is only touched under `lock`.
    private let lock = NSLock()
    private var remaining: Int
    private let done = DispatchSemaphore(value: 0)

    init(_ count: Int) { remaining = count }

    func tick() {
        lock.lock()
        remaining -= 1
        let finished = remaining == 0
        lock.unlock()
        if finished { done.signal() }
    }

    func wait(timeout: TimeInterval) -> Bool { done.wait(timeout: .now() + timeout) == .success }
}

func freshDirectory() -> URL {
    URL(fileURLWithPath: NSTemporaryDirectory(), isDirectory: true)
        .appendingPathComponent("OfflineQueueBench-\(UUID().uuidString)", isDirectory: true)
}

func configuration() -> OfflineQueue.Configuration {
    OfflineQueue.Configuration(
        onlineRetryInterval: 0.05, offlineRetryInterval: 0.05, callbackQueue: DispatchQueue(label: "bench.callbacks"),
        log: { line in FileHandle.standardError.write(Data("queue: \(line)\n".utf8)) })
}

/// `producers` threads enqueue `writes` writes in all into a suspended queue; returns writes per second.
func enqueueRate(writes: Int, producers: Int, base: URL) throws -> Double {
    let directory = freshDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let queue = try OfflineQueue(directory: directory, configuration: configuration())
    defer { queue.close() }
    queue.suspend()
    let perProducer = writes / producers
    let finished = DispatchGroup()
    let start = DispatchTime.now()
    for producer in 0..<producers {
        finished.enter()
        let thread = Thread {
            for index in 0..<perProducer {
                do {
                    try queue.enqueue(BenchWrite(base: base, index: producer * perProducer + index))
                } catch {
                    FileHandle.standardError.write(Data("enqueue failed: \(error)\n".utf8))
                    exit(1)
                }
            }
            finished.leave()
        }
        thread.start()
    }
    finished.wait()
    let seconds = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
    return Double(perProducer * producers) / seconds
}

/// Queues `writes` writes, then resumes the queue and times their delivery; returns writes per second.
func drainRate(writes: Int, inFlight: Int, server: TestServer) throws -> Double {
    let directory = freshDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    var settings = configuration()
    settings.maximumInFlight = inFlight
    let queue = try OfflineQueue(directory: directory, configuration: settings)
    defer { queue.close() }
    queue.suspend()
    for index in 0..<writes {
        try queue.enqueue(BenchWrite(base: server.baseURL, index: index))
    }
    let countdown = Countdown(writes)
    queue.deliveredHandler = { _, _ in countdown.tick() }
    server.resetCounters()
    let start = DispatchTime.now()
    queue.resume()
    guard countdown.wait(timeout: 600) else {
        FileHandle.standardError.write(Data("drain did not finish within 600 s\n".utf8))
        exit(1)
    }
    let seconds = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
    return Double(writes) / seconds
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted[sorted.count / 2]
}

func row(_ name: String, _ samples: [Double]) {
    let line = String(
        format: "| %@ | %.0f | %@ |", name, median(samples),
        samples.map { String(format: "%.0f", $0) }.joined(separator: ", "))
    print(line)
}

let options = Options(CommandLine.arguments)
let server = try TestServer.started()
server.route("POST", "/writes") { _ in .text("ok") }
print("| row | writes/s (median) | rounds |")
print("|---|---:|---|")
if options.only == nil || options.only == "enqueue" {
    for producers in options.producers {
        let samples = try (0..<options.rounds).map { _ in
            try enqueueRate(writes: options.writes, producers: producers, base: server.baseURL)
        }
        row("enqueue, \(producers) producer\(producers == 1 ? "" : "s")", samples)
    }
}
if options.only == nil || options.only == "drain" {
    for inFlight in options.inFlight {
        let samples = try (0..<options.rounds).map { _ in
            try drainRate(writes: options.drainWrites, inFlight: inFlight, server: server)
        }
        row("drain, \(inFlight == 1 ? "one at a time, in order" : "\(inFlight) in flight")", samples)
    }
}
server.stop()
