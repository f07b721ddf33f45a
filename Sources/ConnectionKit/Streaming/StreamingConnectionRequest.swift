import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A request whose response is a stream of elements, delivered while it arrives: server-sent events,
/// JSON lines, a log feed. Subclass it once per endpoint and say how bytes become elements
/// (``makeDecoder(for:)``) and, if you like, what each element means (``handleElement(_:)``).
///
/// ```swift
/// final class FollowLog: StreamingConnectionRequest<String>, @unchecked Sendable {
///     override var url: URL? { URL(string: "https://api.example.com/log") }
///     override func makeDecoder(for response: ConnectionResponse) throws -> any StreamDecoder<String> {
///         LineDecoder(maximumLineSize: maximumElementSize)
///     }
/// }
/// ```
///
/// Elements reach ``handleElement(_:)`` (default: ``elementHandler``) in order, on
/// ``AnyConnectionRequest/callbackQueue`` for a run started with ``AnyConnectionRequest/start()`` (it must be
/// serial; `.main`, the default, is), in the awaiting task for ``ConnectionRequest/value()``, and on a serial
/// queue of the run's own for ``elements()``, which gets them as an `AsyncThrowingStream`. The run then ends exactly once, after the last element:
/// ``ConnectionRequest/completionHandler`` gets the number of elements received when the server ends
/// the body; ``AnyConnectionRequest/failureHandler`` gets the error otherwise.
///
/// Limits: no limit on the total size of the stream (``AnyConnectionRequest/maximumResponseBodySize``
/// applies only to a non-2xx body, which is kept for ``AnyConnectionRequest/validate(_:data:)``); one
/// element at most ``maximumElementSize`` bytes; at most ``maximumBufferedElements`` elements and
/// ``maximumBufferedBytes`` bytes waiting for a slow consumer. ``AnyConnectionRequest/timeoutInterval`` is the idle timeout: it restarts on
/// every byte, so heartbeats (an SSE comment line, say) keep a quiet stream alive.
///
/// A retry (under ``AnyConnectionRequest/retryPolicy``) makes a new decoder and reads the new response
/// from its start; ``ServerSentEventsRequest`` resumes with `Last-Event-ID` instead.
/// - SeeAlso: <doc:streaming>
open class StreamingConnectionRequest<Element: Sendable>: ConnectionRequest<Int>, @unchecked Sendable {
    // Safe: the only stored property is a locked box; the rest lives in the base class's locked storage.
    let streaming = Locked(StreamingState<Element>())

    /// Creates an idle request.
    public override init() {
        super.init()
    }

    // MARK: - Hooks

    /// Makes the decoder that cuts the body of `response` (a 2xx) into elements; called once per
    /// response. Default: throws, saying that the class must override it (the request then fails as
    /// `.parsing` without a retry). Throw to refuse a response that is not a stream of yours.
    open func makeDecoder(for response: ConnectionResponse) throws -> any StreamDecoder<Element> {
        throw ConnectionError(
            .parsing(
                underlying: MissingParser(
                    message: "\(Self.self) must override makeDecoder(for:) to stream \(Element.self)")
            ))
    }

    /// Handles one element, in order, where the run delivers its events, before ``elements()``
    /// gets it. Default: calls ``elementHandler``.
    open func handleElement(_ element: Element) {
        let handler = streaming.withLock { $0.elementHandler }
        handler?(element)
    }

    /// The largest element in bytes (a line, or an event); a larger one fails the request with
    /// `ConnectionError.Kind.responseTooLarge(limit:)` whatever the total size of the stream. The
    /// decoders ConnectionKit ships take it as their limit. Default: 1 MiB
    /// (``StreamLimits/defaultMaximumElementSize``).
    open var maximumElementSize: Int { StreamLimits.defaultMaximumElementSize }

    /// How many elements may wait between the transport and a consumer that is not keeping up (not yet
    /// handled by ``handleElement(_:)``, or not yet taken from ``elements()``). Beyond it, or beyond
    /// ``maximumBufferedBytes``, a transport that can pause stops reading (libcurl pauses earlier still,
    /// once ``StreamLimits/pauseThresholdBytes`` wait); URLSession cannot, so the request fails with
    /// `ConnectionError.Kind.streamBufferFull(limit:)` rather than growing.
    /// Default: 4096.
    open var maximumBufferedElements: Int { 4096 }

    /// How many bytes of the body (counted as received, shared evenly among the elements a chunk
    /// completed) may wait for a consumer that is not keeping up; see ``maximumBufferedElements``.
    /// Default: 16 MiB.
    open var maximumBufferedBytes: Int { 16 * 1024 * 1024 }

    // MARK: - Handlers and state

    /// Called with each element, where the run delivers its events, by the default
    /// ``handleElement(_:)``. Default `nil`.
    public var elementHandler: (@Sendable (Element) -> Void)? {
        get { streaming.withLock { $0.elementHandler } }
        set { streaming.withLock { $0.elementHandler = newValue } }
    }

    /// The elements the current (or last) run has received so far.
    public var elementCount: Int { streaming.withLock { $0.received } }

    /// Starts the request (when the first element is asked for) and returns its elements. The stream
    /// ends when the run ends: normally after the last element, or by throwing what the failure handler
    /// gets. Cancelling the iterating Task, or dropping the stream before its end, cancels the request.
    /// One consumer per run.
    public func elements() -> AsyncThrowingStream<Element, any Error> {
        let lifetime = ElementStreamLifetime(channel: ElementChannel(owner: self))
        return AsyncThrowingStream(unfolding: { try await lifetime.channel.next() })
    }

    /// ``elements()`` of a run on `client` instead of the class's ``AnyConnectionRequest/client``: that
    /// client's pipeline, settings, registry and transport serve it (see ``AnyConnectionRequest/start(on:)``).
    public func elements(on client: ConnectionClient) -> AsyncThrowingStream<Element, any Error> {
        let lifetime = ElementStreamLifetime(channel: ElementChannel(owner: self, on: client))
        return AsyncThrowingStream(unfolding: { try await lifetime.channel.next() })
    }

    // MARK: - Output plumbing

    /// The number of elements received: the output of a stream that ends.
    open override func parseCompletionData(_ data: Data, response: ConnectionResponse) throws -> Int {
        streaming.withLock { $0.received }
    }

    override var streamedElementCount: Int? { elementCount }

    override var isStreaming: Bool { true }

    override func streamSink(for response: ConnectionResponse, run: RunNumber) throws -> (any BodySink)? {
        // A non-2xx body is kept whole for `validate(_:data:)`.
        guard (200..<300).contains(response.statusCode) else { return nil }
        let decoder = try makeDecoder(for: response)
        let capacity = BufferCapacity(
            elements: max(1, maximumBufferedElements), bytes: max(maximumElementSize, maximumBufferedBytes))
        streaming.withLock { state in
            if state.run != run { state.beginRun(run) }
        }
        let attempt = self.attempt
        return DecodingSink(
            decoder: decoder,
            observe: { [weak self] decoder, elements in
                self?.decoderDidAdvance(decoder, elements: elements, attempt: attempt)
            },
            deliver: { [weak self] elements, bytes in
                try self?.received(elements, bytes: bytes, run: run, capacity: capacity) ?? .more
            })
    }

    /// The decoder of attempt `attempt` took a chunk and produced `elements` (on the transport's queue).
    func decoderDidAdvance(_ decoder: any StreamDecoder<Element>, elements: [Element], attempt: Int) {}

    override func runWillEnd(_ run: RunNumber, outcome: RunOutcome) {
        guard case .cancelled = outcome else { return }
        // Elements already on their way to the callback queue are dropped: nothing after the ending.
        streaming.withLock { state in
            if state.run == run { state.cancelled = true }
        }
    }

    // MARK: - Delivery

    /// Elements decoded from `bytes` of the body (on the transport's queue): counted, bounded, sent to the
    /// callback queue. Returns the demand for the transfer: `.wait` once the buffer holds enough, on a
    /// transfer that follows demand; ``released(_:count:run:)`` asks for more.
    private func received(
        _ elements: [Element], bytes: Int, run: RunNumber, capacity: BufferCapacity
    ) throws -> TransferDemand {
        let weight = bytes / elements.count
        let batch = zip(elements, [weight + bytes % elements.count] + repeatElement(weight, count: elements.count - 1))
            .map { BufferedElement(element: $0, bytes: $1) }
        let pauseAt = BufferCapacity(
            elements: capacity.elements, bytes: min(capacity.bytes, StreamLimits.pauseThresholdBytes))
        // Whether to wait, and the bound that was exceeded if waiting is a must (elements first).
        let pause: (at: BufferCapacity, exceeded: Int?)? = streaming.withLock { state in
            guard state.run == run else { return nil }
            state.received += elements.count
            state.buffered.elements += elements.count
            state.buffered.bytes += bytes
            guard !state.paused else { return nil }
            if state.buffered.exceeds(capacity) {
                return (capacity, state.buffered.elements > capacity.elements ? capacity.elements : capacity.bytes)
            }
            return !state.cannotPause && state.buffered.exceeds(pauseAt) ? (pauseAt, nil) : nil
        }
        var demand = TransferDemand.more
        if let pause {
            // A transfer not stored yet (its events began before the transport returned it) cannot be
            // asked for more later: it is not made to wait, and asked again at the next chunk.
            let handle = storage.withLock { $0.transfer?.handle }
            let waits = handle?.followsDemand ?? false
            if !waits, let exceeded = pause.exceeded {
                throw ConnectionError(.streamBufferFull(limit: exceeded))
            }
            // Recorded before the elements go out: the consumer that takes them may ask for more at once.
            streaming.withLock { state in
                if waits {
                    state.paused = true
                    state.pausedHandle = handle
                    state.capacity = pause.at
                } else if handle != nil {
                    state.cannotPause = true
                }
            }
            if waits { demand = .wait }
        }
        let (target, queue) = storage.withLock { ($0.delivery(of: run), $0.callbackQueue) }
        deliverEvent(of: run, via: target, queue: queue) { self.deliver(batch, run: run) }
        return demand
    }

    /// On the callback queue: the hook, then the `elements()` consumer if there is one.
    private func deliver(_ batch: [BufferedElement<Element>], run: RunNumber) {
        for (index, item) in batch.enumerated() {
            let target: (deliver: Bool, channel: ElementChannel<Element>?) = streaming.withLock { state in
                (state.run == run && !state.cancelled, state.channel)
            }
            guard target.deliver else {
                released(batch[index...].reduce(0) { $0 + $1.bytes }, count: batch.count - index, run: run)
                return
            }
            handleElement(item.element)
            if let channel = target.channel {
                channel.push(item, run: run)
            } else {
                released(item.bytes, count: 1, run: run)
            }
        }
    }

    /// `count` elements (`bytes` in all) left the buffer; a waiting transfer is asked for more once half of
    /// it is free.
    func released(_ bytes: Int, count: Int, run: RunNumber) {
        let resume: (any TransferHandle)? = streaming.withLock { state in
            guard state.run == run else { return nil }
            state.buffered.elements = max(0, state.buffered.elements - count)
            state.buffered.bytes = max(0, state.buffered.bytes - bytes)
            let half = BufferCapacity(elements: state.capacity.elements / 2, bytes: state.capacity.bytes / 2)
            guard state.paused, !state.buffered.exceeds(half) else { return nil }
            state.paused = false
            defer { state.pausedHandle = nil }
            return state.pausedHandle
        }
        resume?.demandMore()
    }

    /// Makes `channel` the consumer of the next run's elements.
    func attach(_ channel: ElementChannel<Element>) {
        streaming.withLock { $0.channel = channel }
    }

    /// `channel`'s consumer is done: later runs deliver to the handler only.
    func detach(_ channel: ElementChannel<Element>) {
        streaming.withLock { state in
            if state.channel === channel { state.channel = nil }
        }
    }
}
