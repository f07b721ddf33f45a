import ConnectionKit
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `streamed-upload`: one large body streamed from an `AsyncSequence` over libcurl, in a process that does nothing
/// else, so that its peak resident size (`VmHWM`) is what streaming that body cost.
enum StreamedUpload {
    /// The size of each chunk the sequence makes.
    static let chunkSize = 64 * 1024

    /// POSTs `body` over libcurl.
    final class Upload: ConnectionRequest<Data>, @unchecked Sendable {
        // Safe: only immutable stored properties.
        let target: URL
        let body: StreamedBody
        let chosen: ConnectionTransport
        init(_ target: URL, body: StreamedBody, transport: ConnectionTransport) {
            self.target = target
            self.body = body
            self.chosen = transport
            super.init()
            callbackQueue = DispatchQueue(label: "ChildProcessHelper.streamed-upload")
        }
        override var url: URL? { target }
        override var httpMethod: HTTPMethod { .post }
        override var requestBody: RequestBody? { .stream(body) }
        override var timeoutInterval: TimeInterval { 120 }
        override var transport: ConnectionTransport { chosen }
    }

    /// `count` bytes in chunks of ``chunkSize``: chunk *i* is ``chunk(_:)``, cut short at the end. Made as it is
    /// asked for: nothing is kept but the pattern.
    struct Chunks: AsyncSequence, Sendable {
        let count: Int64

        struct AsyncIterator: AsyncIteratorProtocol {
            let count: Int64
            var index: Int64 = 0

            mutating func next() async -> Data? {
                let offset = index * Int64(chunkSize)
                guard offset < count else { return nil }
                defer { index += 1 }
                let chunk = StreamedUpload.chunk(index)
                return offset + Int64(chunkSize) <= count ? chunk : chunk.prefix(Int(count - offset))
            }
        }

        func makeAsyncIterator() -> AsyncIterator { AsyncIterator(count: count) }
    }

    private static let pattern = Data((0..<chunkSize).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })

    /// Chunk `index`: the pattern with the index in its first 8 bytes (little-endian).
    static func chunk(_ index: Int64) -> Data {
        var chunk = pattern
        withUnsafeBytes(of: index.littleEndian) { chunk.replaceSubrange(0..<8, with: $0) }
        return chunk
    }

    /// Uploads 1 MiB to `warmUp` first (so that the loop, threads and buffers of a first upload exist), resets the
    /// peak, then streams `count` bytes to `url` and prints `ANSWER <body>`, `PROGRESS <completed> <expected>`
    /// (the largest upload progress reported), `SECONDS <duration>` and `GROWTH <KiB>`; `ERROR <error>` on failure.
    static func run(url: URL, warmUp: URL, count: Int64, transport: ConnectionTransport) async {
        await PeakMemory.printGrowth {
            let body = StreamedBody(length: 1 << 20) { Chunks(count: 1 << 20) }
            _ = try await Upload(warmUp, body: body, transport: transport).value()
        } during: {
            let watch = MultipartUpload.Watch()
            let upload = Upload(url, body: StreamedBody { Chunks(count: count) }, transport: transport)
            upload.progressHandler = { watch.record($0) }
            let started = Date()
            let answer = try await upload.value()
            let seconds = Date().timeIntervalSince(started)
            return ["ANSWER \(String(decoding: answer, as: UTF8.self))", watch.line, "SECONDS \(seconds)"]
        }
    }
}
