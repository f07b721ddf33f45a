import Foundation

/// A request body produced as it is sent, from an `AsyncSequence` of byte chunks: returned in
/// ``RequestBody/stream(_:)`` by ``AnyConnectionRequest/requestBody``, or set on a one-off
/// ``BasicConnectionRequest/streamedBody``.
///
/// The sequence is **pulled, never pushed**: its next chunk is asked for only once the transport has taken
/// the whole of the previous one, so at most one chunk waits in memory whatever the body's size and however
/// slowly the server reads. With a ``length`` the body goes out with that `Content-Length`; without one it is
/// sent chunked (HTTP/1.1) or in data frames (HTTP/2).
///
/// A retry, a `307`/`308` redirect or an authorization refresh needs the body again: a body made with
/// ``init(length:contentType:_:)`` calls its factory again for a fresh sequence, from the first byte. One made
/// with ``singleUse(_:length:contentType:)`` cannot be sent twice: a run that needs it again ends with
/// ``ConnectionError/Kind/bodyNotReplayable``, never with a truncated or empty body.
///
/// When the transfer ends before the sequence does (a cancel, a timeout, a failure, an early answer), the task
/// iterating it is cancelled: a sequence waiting in `next()` sees the cancellation there, one between two chunks
/// gets one more `next()` on the cancelled task. A pipeline stage must not iterate a streamed body itself (the
/// transfer would send only what it left): it forwards it, or replaces the whole body.
///
/// Streamed bodies are sent by the libcurl transport (`ConnectionTransport.libcurl()`); the URLSession
/// transport refuses them with `invalidRequest` before anything is sent (see <doc:streaming>).
public struct StreamedBody: Sendable {
    /// The body's length in bytes, sent as `Content-Length`; `nil` (the default) when it is not known, and the
    /// body is sent chunked. A sequence that ends short of it, or goes past it, fails the request with
    /// ``ConnectionError/Kind/requestBodyFailed`` instead of sending a body of another length.
    public let length: Int64?

    /// The `Content-Type` the body is sent with (unless the request's header fields set one). Default
    /// `application/octet-stream`.
    public let contentType: String

    /// Whether the body can be sent again (made with a factory): `false` for a ``singleUse(_:length:contentType:)``
    /// body.
    public var isReplayable: Bool { singleUseToken == nil }

    /// Iterates a fresh sequence for one transfer, pulling each chunk when the transfer asks for it.
    let producer: any StreamedBodyProducer

    /// Set for a single-use body: taken by the first transfer that sends it.
    let singleUseToken: SingleUseToken?

    /// A body made again, from the first byte, for every transfer that sends it: `makeChunks` is called once per
    /// attempt and per `307`/`308` hop, on a task of ConnectionKit's, when the transport is ready for the first
    /// byte. Its chunks may be `Data`, `[UInt8]` or any `DataProtocol`; an empty chunk is skipped. An error the
    /// sequence throws fails the request with ``ConnectionError/Kind/requestBodyFailed``.
    ///
    /// ```swift
    /// StreamedBody(length: 1 << 20) { numberedLines(count: 1024) }
    /// ```
    public init<Chunks: AsyncSequence>(
        length: Int64? = nil, contentType: String = "application/octet-stream",
        _ makeChunks: @escaping @Sendable () -> Chunks
    ) where Chunks.Element: DataProtocol {
        self.init(length: length, contentType: contentType, token: nil, makeChunks)
    }

    /// A body from one sequence, sent at most once: a run that needs it again (a retry, a `307`/`308`
    /// redirect, an authorization refresh), or a second run, ends with ``ConnectionError/Kind/bodyNotReplayable``
    /// before anything more is sent. Use it for a body that cannot be made again (an upload proxied from
    /// another connection); prefer ``init(length:contentType:_:)`` whenever the body can be produced twice.
    public static func singleUse<Chunks: AsyncSequence & Sendable>(
        _ chunks: Chunks, length: Int64? = nil, contentType: String = "application/octet-stream"
    ) -> StreamedBody where Chunks.Element: DataProtocol {
        StreamedBody(length: length, contentType: contentType, token: SingleUseToken()) { chunks }
    }

    private init<Chunks: AsyncSequence>(
        length: Int64?, contentType: String, token: SingleUseToken?, _ makeChunks: @escaping @Sendable () -> Chunks
    ) where Chunks.Element: DataProtocol {
        self.length = length
        self.contentType = contentType
        self.singleUseToken = token
        self.producer = ChunkProducer(makeChunks: makeChunks)
    }

    /// A reader for one transfer. Throws ``ConnectionError/Kind/bodyNotReplayable`` for a single-use body that
    /// a transfer took already.
    func makeReader() throws(ConnectionError) -> StreamedBodyReader {
        if let singleUseToken, !singleUseToken.take() {
            throw ConnectionError(.bodyNotReplayable(reason: Self.notReplayableReason))
        }
        return StreamedBodyReader(self)
    }

    static let notReplayableReason =
        "the request needed its single-use streamed body again (a retry, a 307/308 redirect or an authorization "
        + "refresh), and it was sent already; give a StreamedBody made with a factory to allow it."

    /// Marks a single-use body as sent: shared by every copy of the value.
    final class SingleUseToken: Sendable {
        private let taken = Locked(false)

        /// Whether this call took it (it was not taken before).
        func take() -> Bool {
            taken.withLock { taken in
                defer { taken = true }
                return !taken
            }
        }
    }
}

/// Iterates a fresh sequence of a ``StreamedBody`` for one transfer.
protocol StreamedBodyProducer: Sendable {
    /// Pulls each chunk when `reader` asks for it, until the sequence ends or throws, or the reader stops.
    func produce(into reader: StreamedBodyReader) async
}

/// The producer of a body's sequence, in a generic type's method rather than a closure: a closure would have to
/// capture the sequence's type.
private struct ChunkProducer<Chunks: AsyncSequence>: StreamedBodyProducer where Chunks.Element: DataProtocol {
    let makeChunks: @Sendable () -> Chunks

    func produce(into reader: StreamedBodyReader) async {
        var iterator = makeChunks().makeAsyncIterator()
        do {
            while await reader.awaitDemand() {
                guard let chunk = try await iterator.next() else { return reader.finish(error: nil) }
                reader.deliver((chunk as? Data) ?? Data(chunk))
            }
            // The transfer ended between two chunks: one more `next()`, on this cancelled task, is how a
            // sequence learns that its consumer was cancelled (an `AsyncStream` ends with `.cancelled`).
            if Task.isCancelled { _ = try await iterator.next() }
        } catch {
            reader.finish(error: error)
        }
    }
}
