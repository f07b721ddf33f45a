import Foundation

/// How a ``TestResponse`` body goes on the wire. The default body of a response is `.data(Data())`.
public enum TestBody: Sendable {
    /// A fixed body. `Content-Length` is added automatically unless the response already has one
    /// or its fault declares another.
    case data(Data)

    /// `Transfer-Encoding: chunked`, one chunk per element (empty elements are skipped, because an empty
    /// chunk would end the body), followed by the terminating zero-size chunk.
    case chunked([Data])

    /// `Content-Length` set to the full size; the first `chunkSize` bytes go out right after the head, then
    /// `chunkSize` more bytes every `interval` seconds. Takes about `(chunks - 1) * interval` in total.
    /// A `chunkSize` below 1 counts as 1.
    case drip(Data, chunkSize: Int, interval: TimeInterval)

    /// `length` deterministic pseudo-random bytes, generated on the fly in 64 KiB blocks so the body is never
    /// held in memory. `Content-Length` is `length`. The same bytes come from
    /// ``generatedBytes(length:seed:)`` and ``forEachGeneratedBlock(length:seed:blockSize:_:)``.
    case generated(length: Int64, seed: UInt8)

    /// `Transfer-Encoding: chunked`, one chunk per value of `next(0)`, `next(1)`, … until it returns `nil`,
    /// with `interval` seconds before every chunk after the first: a stream that can be endless (it stops
    /// when the client goes away). Empty values are skipped. See ``TestResponse/eventStream(_:interval:thenDrop:)``.
    case stream(interval: TimeInterval, next: @Sendable (Int) -> Data?)
}
