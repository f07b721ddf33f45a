import Foundation

/// One transfer's pull of a ``StreamedBody``: the transport reads from it on its own thread, without ever
/// blocking, and the body's sequence runs on a task of its own, which asks for the next chunk only when the
/// transport has taken the whole of the previous one.
///
/// The hand-over, all under one lock: ``read(into:ready:)`` copies from the chunk in hand; when that is spent it
/// records the demand (waking the producer, started by the first read) and answers ``Read/wait``, keeping the
/// `ready` callback; ``deliver(_:)`` and ``finish(error:)`` (the producer) store what came and call it, and the
/// transport reads again. ``cancel()`` ends the producer's iteration (its task is cancelled, and a producer
/// waiting for demand is told to stop); nothing it delivers afterwards is kept.
final class StreamedBodyReader: Sendable {
    /// What a read gave.
    enum Read: Equatable {
        /// This many bytes (at least one) were copied.
        case bytes(Int)
        /// Nothing is ready: the `ready` callback given to the read runs once something is.
        case wait
        /// The body is complete.
        case end
        /// The body failed (``failure`` says why); the transfer ends with that error.
        case failed
    }

    private struct State {
        var chunk = Data()
        var offset = 0
        /// The transport asked for a chunk that has not come yet.
        var demanded = false
        /// The producer waiting for demand.
        var waitingProducer: CheckedContinuation<Bool, Never>?
        var producer: Task<Void, Never>?
        var started = false
        var ended = false
        var cancelled = false
        var failure: ConnectionError?
        /// The transport's callback after a ``Read/wait``.
        var ready: (@Sendable () -> Void)?
        /// Bytes the sequence produced so far.
        var produced: Int64 = 0
    }

    /// The body's declared length, `nil` when unknown (sent chunked).
    let length: Int64?
    private let body: StreamedBody
    private let state = Locked(State())

    init(_ body: StreamedBody) {
        self.body = body
        self.length = body.length
    }

    // MARK: - The transport's side (never blocks)

    /// Copies the next bytes of the body into `buffer`. Starts the producer at the first call; asks it for the
    /// next chunk when the one in hand is spent. After ``Read/wait``, `ready` runs (on the producer's task)
    /// once a read can give something again.
    func read(into buffer: UnsafeMutableRawBufferPointer, ready: @escaping @Sendable () -> Void) -> Read {
        let (read, wake, start): (Read, CheckedContinuation<Bool, Never>?, Bool) = state.withLock { state in
            if state.failure != nil || state.cancelled { return (.failed, nil, false) }
            if state.offset < state.chunk.count {
                let count = min(buffer.count, state.chunk.count - state.offset)
                let offset = state.offset
                state.chunk.withUnsafeBytes { bytes in
                    guard let source = bytes.baseAddress else { return }
                    buffer.baseAddress?.copyMemory(from: source + offset, byteCount: count)
                }
                state.offset += count
                if state.offset == state.chunk.count { (state.chunk, state.offset) = (Data(), 0) }
                return (.bytes(count), nil, false)
            }
            if state.ended { return (.end, nil, false) }
            state.ready = ready
            state.demanded = true
            defer { state.waitingProducer = nil }
            let start = !state.started
            state.started = true
            return (.wait, state.waitingProducer, start)
        }
        wake?.resume(returning: true)
        if start {
            let producer = Task.detached { [self] in await body.producer.produce(into: self) }
            let late = state.withLock { state in
                state.producer = producer
                return state.cancelled
            }
            if late { producer.cancel() }
        }
        return read
    }

    /// Why the body failed, once a read answered ``Read/failed``.
    var failure: ConnectionError? {
        state.withLock { $0.cancelled ? nil : $0.failure }
    }

    /// Ends the producer's iteration: its task is cancelled and a wait for demand returns `false`. What it
    /// delivers afterwards is dropped. Idempotent; from any thread.
    func cancel() {
        let (waiting, producer) = state.withLock { state in
            state.cancelled = true
            state.ready = nil
            state.chunk = Data()
            defer { (state.waitingProducer, state.producer) = (nil, nil) }
            return (state.waitingProducer, state.producer)
        }
        // The task first: the producer, told to stop, then sees its task cancelled.
        producer?.cancel()
        waiting?.resume(returning: false)
    }

    // MARK: - The producer's side

    /// Waits until the transport asks for a chunk. `false` when the transfer ended instead: stop iterating.
    func awaitDemand() async -> Bool {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let answer: Bool? = state.withLock { state in
                    if state.cancelled || Task.isCancelled { return false }
                    if state.demanded { return true }
                    state.waitingProducer = continuation
                    return nil
                }
                if let answer { continuation.resume(returning: answer) }
            }
        } onCancel: {
            cancel()
        }
    }

    /// The next chunk. An empty one is skipped (the demand stands); one that takes the body past its
    /// ``length`` fails it.
    func deliver(_ chunk: Data) {
        guard !chunk.isEmpty else { return }
        let ready: (@Sendable () -> Void)? = state.withLock { state in
            guard !state.cancelled, state.failure == nil else { return nil }
            state.produced += Int64(chunk.count)
            if let length, state.produced > length {
                state.failure = Self.lengthMismatch(length, produced: "more than \(length)")
            } else {
                (state.chunk, state.offset, state.demanded) = (chunk, 0, false)
            }
            defer { state.ready = nil }
            return state.ready
        }
        ready?()
    }

    /// The sequence ended (`error` `nil`) or threw `error`. An end short of the body's ``length`` fails it.
    func finish(error: (any Error)?) {
        let ready: (@Sendable () -> Void)? = state.withLock { state in
            guard !state.cancelled, state.failure == nil else { return nil }
            if let error {
                state.failure = ConnectionError(.requestBodyFailed(underlying: error))
            } else if let length, state.produced != length {
                state.failure = Self.lengthMismatch(length, produced: "\(state.produced)")
            } else {
                state.ended = true
            }
            defer { state.ready = nil }
            return state.ready
        }
        ready?()
    }

    private static func lengthMismatch(_ length: Int64, produced: String) -> ConnectionError {
        ConnectionError(
            .requestBodyFailed(
                reason: "the streamed body's length is \(length) bytes, and its sequence produced \(produced); "
                    + "nothing more was sent."))
    }
}
