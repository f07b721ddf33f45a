// UploadBench: a request body streamed from an AsyncSequence (issue 44), 64 KiB chunks made as they are asked
// for, uploaded with no declared length (chunked) to a loopback sink that reads and drops it, then answers.
//
//   swift run -c release --package-path Benchmarks UploadBench [MiB] [libcurl|urlsession]
//
// Prints the time, the throughput, the peak resident size (VmHWM) over the resident size before the upload
// (after a 1 MiB warm-up), and what the sink counted. URLSession refuses streamed bodies (docs/linux.md): its row
// prints the refusal. Peak RSS is per process: run it once per transport. Figures: docs/benchmarks.md.
import ConnectionKit
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// A field of /proc/self/status, in KiB.
func kibibytes(_ field: String) -> Int64 {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
    for line in status.split(separator: "\n") where line.hasPrefix(field + ":") {
        return Int64(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? 0
    }
    return 0
}

/// Sets VmHWM back to the current resident size.
func resetPeak() {
    if let handle = FileHandle(forWritingAtPath: "/proc/self/clear_refs") {
        try? handle.write(contentsOf: Data("5".utf8))
        try? handle.close()
    }
}

/// A loopback sink: accepts connections one at a time, reads a request whose chunked body holds no CR (the
/// benchmark's chunks are all `a`), up to the body's last chunk, counts the bytes, and answers `200 ok`.
final class Sink: @unchecked Sendable {
    // Safe: `counted` is only touched under `lock`; the rest is set in init.
    let port: Int
    private let listener: Int32
    private let lock = NSLock()
    private var counted: Int64 = 0

    init() {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr = in_addr(s_addr: inet_addr("127.0.0.1"))
        let size = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, size) }
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        listen(fd, 8)
        listener = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        Thread { [self] in serve() }.start()
    }

    /// Bytes read by the sink so far, request heads and chunk framing included.
    var bytesRead: Int64 { lock.withLock { counted } }

    private func serve() {
        var buffer = [UInt8](repeating: 0, count: 256 * 1024)
        while true {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { return }
            var tail: [UInt8] = []
            while true {
                let count = recv(connection, &buffer, buffer.count, 0)
                guard count > 0 else { break }
                lock.withLock { counted += Int64(count) }
                tail = Array((tail + buffer[max(0, count - 5)..<count]).suffix(5))
                if tail == Array("0\r\n\r\n".utf8) {
                    let answer = Array("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok".utf8)
                    _ = send(connection, answer, answer.count, 0)
                    tail = []
                }
            }
            close(connection)
        }
    }
}

/// `count` bytes of `a`, in chunks of 64 KiB, made as they are asked for.
struct Chunks: AsyncSequence, Sendable {
    static let chunk = Data(repeating: 0x61, count: 64 * 1024)
    let count: Int64

    struct AsyncIterator: AsyncIteratorProtocol {
        var left: Int64
        mutating func next() async -> Data? {
            guard left > 0 else { return nil }
            let size = Int(Swift.min(Int64(Chunks.chunk.count), left))
            left -= Int64(size)
            return size == Chunks.chunk.count ? Chunks.chunk : Chunks.chunk.prefix(size)
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(left: count) }
}

final class Upload: ConnectionRequest<Data>, @unchecked Sendable {
    // Safe: only immutable stored properties.
    let target: URL
    let count: Int64
    let chosen: ConnectionTransport
    init(_ target: URL, count: Int64, transport: ConnectionTransport) {
        (self.target, self.count, self.chosen) = (target, count, transport)
        super.init()
        callbackQueue = DispatchQueue(label: "UploadBench")
    }
    override var url: URL? { target }
    override var httpMethod: HTTPMethod { .post }
    override var timeoutInterval: TimeInterval { 300 }
    override var requestBody: RequestBody? {
        let count = self.count
        return .stream(StreamedBody { Chunks(count: count) })
    }
    override var transport: ConnectionTransport { chosen }
}

let arguments = CommandLine.arguments.dropFirst()
let mebibytes = arguments.first.flatMap { Int64($0) } ?? 1024
let transportName = arguments.dropFirst().first ?? "libcurl"
let transport: ConnectionTransport = transportName == "urlsession" ? .urlSession : try .libcurl()
let sink = Sink()
let target = URL(string: "http://127.0.0.1:\(sink.port)/upload")!
let done = DispatchSemaphore(value: 0)
Task.detached {
    do {
        _ = try await Upload(target, count: 1 << 20, transport: transport).value()
        resetPeak()
        let before = kibibytes("VmRSS")
        let started = Date()
        _ = try await Upload(target, count: mebibytes << 20, transport: transport).value()
        let seconds = Date().timeIntervalSince(started)
        let growth = Double(kibibytes("VmHWM") - before) / 1024
        let rate = Double(mebibytes << 20) / seconds / 1_000_000
        print(
            String(
                format: "%@: %lld MiB streamed (unknown length) in %.2f s = %.0f MB/s; peak RSS growth %.1f MiB; "
                    + "sink read %lld bytes", transportName, mebibytes, seconds, rate, growth, sink.bytesRead))
    } catch {
        print("\(transportName): \(error)")
    }
    done.signal()
}
done.wait()
