import ConnectionKit
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The large file saved by a consumer that cannot keep up: it writes each chunk to a file and then
/// waits 1 ms per MiB. Peak resident memory (`VmHWM`) shows who buffers what the consumer has not taken
/// yet. Each measurement runs in a child process of its own (`child-slow raw|ck|curl`).
///
/// Raw: a URLSession data-task delegate doing the work in `didReceive` (URLSession keeps reading the
/// socket meanwhile). ConnectionKit: a `StreamingConnectionRequest<Data>` whose elements are the chunks
/// and whose `handleElement` does the work. On libcurl, a consumer that falls behind pauses the socket
/// (default bound); URLSession cannot pause, so on URLSession the bound is raised until it never fails,
/// which is what a user of URLSession would have to do.
enum SlowConsumer: Benchmark {
    static let name = "slow"

    static func run(_ options: Options) throws -> [Row] {
        var results: [Variant: [FileDownload.ChildResult]] = [:]
        _ = try Driver.alternate(rounds: min(options.rounds, 3), warmUp: false) { variant in
            let result = try FileDownload.spawnChild(variant, options, subcommand: "child-slow")
            results[variant, default: []].append(result)
            return result.seconds
        }
        let label = "\(options.bigFileLabel) saved by a 1 ms/MiB consumer"
        var memory = Row(
            "\(label): peak RSS", unit: "MiB", raw: (results[.raw] ?? []).map(\.peakMiB),
            connectionKit: (results[.connectionKit] ?? []).map(\.peakMiB), goal: .none)
        (memory.libcurl, memory.libcurlGoal) = ((results[.libcurl] ?? []).map(\.peakMiB), .connectionKitBelow(40))
        var speed = Row(
            "\(label)", unit: "MB/s", raw: (results[.raw] ?? []).map(\.megabytesPerSecond),
            connectionKit: (results[.connectionKit] ?? []).map(\.megabytesPerSecond), goal: .none)
        speed.libcurl = (results[.libcurl] ?? []).map(\.megabytesPerSecond)
        return [memory, speed]
    }

    /// Runs in the child: one slow save of the large file, then prints `RESULT …`.
    static func child(_ options: Options) throws {
        guard let variant = options.positional.first.flatMap(Variant.init(rawValue:)) else {
            throw BenchmarkError("child-slow needs raw, ck or curl")
        }
        let url = try options.url(ServedFiles.big)
        let destination = options.downloadsDirectory.appendingPathComponent("slow-\(variant.rawValue).bin")
        try? FileManager.default.removeItem(at: destination)
        guard FileManager.default.createFile(atPath: destination.path, contents: nil),
            let file = FileHandle(forWritingAtPath: destination.path)
        else { throw BenchmarkError("cannot create \(destination.path)") }
        let consumer = SlowWriter(file)
        let start = Driver.now()
        let outcome = Locked<(any Error)?>(nil)
        let done = DispatchSemaphore(value: 0)
        switch variant.transport {
        case nil:
            let delegate = RawSlowDelegate(consumer) { error in
                outcome.withLock { $0 = error }
                done.signal()
            }
            let session = URLSession(configuration: .ephemeral, delegate: delegate, delegateQueue: nil)
            session.dataTask(with: url).resume()
        case let transport?:
            let request = ChunkStream(url, transport: transport, unbounded: variant == .connectionKit)
            request.callbackQueue = DispatchQueue(label: "slow consumer")
            request.consumer = consumer
            request.completionHandler = { _ in done.signal() }
            request.failureHandler = { error in
                outcome.withLock { $0 = error }
                done.signal()
            }
            request.start()
        }
        guard done.wait(timeout: .now() + 900) == .success else { throw BenchmarkError("the slow save did not end") }
        if let error = outcome.withLock({ $0 }) { throw error }
        let seconds = Driver.now() - start
        try file.close()
        let bytes = consumer.written
        try? FileManager.default.removeItem(at: destination)
        guard bytes == options.bigFileBytes else {
            throw BenchmarkError("saved \(bytes) bytes, expected \(options.bigFileBytes)")
        }
        print("RESULT \(seconds) \(bytes) \(ProcessMemory.peakResidentMiB() ?? 0)")
    }
}

/// Writes chunks to a file, then sleeps 1 ms for every whole MiB written. Called serially.
final class SlowWriter: @unchecked Sendable {
    // Safe: only used from one serial queue at a time (a delegate queue or a callback queue).
    private let file: FileHandle
    private(set) var written: Int64 = 0
    private var owed = 0

    init(_ file: FileHandle) { self.file = file }

    func consume(_ data: Data) {
        file.write(data)
        written += Int64(data.count)
        owed += data.count
        while owed >= 1 << 20 {
            owed -= 1 << 20
            Thread.sleep(forTimeInterval: 0.001)
        }
    }
}

/// Raw URLSession: the consumer runs on the delegate queue.
final class RawSlowDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // Safe: immutable after init; URLSession calls the delegate serially.
    private let consumer: SlowWriter
    private let finished: @Sendable ((any Error)?) -> Void

    init(_ consumer: SlowWriter, finished: @escaping @Sendable ((any Error)?) -> Void) {
        self.consumer = consumer
        self.finished = finished
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        consumer.consume(data)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        finished(error)
    }
}

/// Hands each chunk on as it arrives.
struct ChunkDecoder: StreamDecoder {
    mutating func decode(_ chunk: Data) throws -> [Data] { [chunk] }
    mutating func finish() throws -> [Data] { [] }
}

/// ConnectionKit: the body as a stream of chunks, consumed on the callback queue.
final class ChunkStream: StreamingConnectionRequest<Data>, @unchecked Sendable {
    // Safe: `target`, `chosen` and `unbounded` are lets; `consumer` is set before `start()`.
    private let target: URL
    private let chosen: ConnectionTransport
    private let unbounded: Bool
    var consumer: SlowWriter?

    init(_ target: URL, transport: ConnectionTransport, unbounded: Bool) {
        (self.target, self.chosen, self.unbounded) = (target, transport, unbounded)
        super.init()
    }

    override var url: URL? { target }
    override var transport: ConnectionTransport { chosen }
    override var retryPolicy: RetryPolicy { .none }
    override var maximumBufferedElements: Int { unbounded ? 1 << 30 : super.maximumBufferedElements }
    override var maximumBufferedBytes: Int { unbounded ? 1 << 40 : super.maximumBufferedBytes }

    override func makeDecoder(for response: ConnectionResponse) throws -> any StreamDecoder<Data> { ChunkDecoder() }

    override func handleElement(_ element: Data) {
        consumer?.consume(element)
    }
}
