import Foundation

/// Hands a streaming request's elements to one `elements()` consumer, pull by pull. Each pull tells the
/// request that an element left its bounded buffer.
final class ElementChannel<Element: Sendable>: @unchecked Sendable {
    // Safe: every mutable stored property lives in `state`, behind its lock.
    private struct State {
        var queue: [(item: BufferedElement<Element>, run: RunNumber)] = []
        var head = 0
        var ending: Result<Void, any Error>?
        var waiting: CheckedContinuation<Element?, any Error>?
        var started = false
        /// Strong until the run ends, so that `SomeRequest().elements()` keeps its request alive; the
        /// cycle with the request's `channel` is broken by ``end(_:)``.
        var owner: StreamingConnectionRequest<Element>?
    }

    private let state = Locked(State())

    private var owner: StreamingConnectionRequest<Element>? { state.withLock { $0.owner } }

    /// The client the run starts on, or `nil` for the class's ``AnyConnectionRequest/client``.
    private let client: ConnectionClient?

    init(owner: StreamingConnectionRequest<Element>, on client: ConnectionClient? = nil) {
        self.client = client
        state.withLock { $0.owner = owner }
    }

    /// The next element, `nil` at the end; starts the request on the first call. Cancelling the
    /// awaiting Task cancels the request.
    func next() async throws -> Element? {
        let first: Bool = state.withLock { state in
            defer { state.started = true }
            return !state.started
        }
        if first, let owner {
            owner.attach(self)
            owner.start(waiter: { [self] result in end(result.map { _ in () }) }, delivery: .ownQueue(), on: client)
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Element?, any Error>) in
                let ready: Result<(BufferedElement<Element>, RunNumber)?, any Error>? = state.withLock { state in
                    if state.head < state.queue.count {
                        let item = state.queue[state.head]
                        state.head += 1
                        if state.head > 64, state.head * 2 > state.queue.count {
                            state.queue.removeFirst(state.head)
                            state.head = 0
                        }
                        return .success(item)
                    }
                    switch state.ending {
                    case .success?: return .success(nil)
                    case .failure(let error)?: return .failure(error)
                    case nil:
                        state.waiting = continuation
                        return nil
                    }
                }
                guard let ready else { return }
                if case .success(let item?) = ready { owner?.released(item.0.bytes, count: 1, run: item.1) }
                continuation.resume(with: ready.map { $0?.0.element })
            }
        } onCancel: { [owner] in
            owner?.cancel()
        }
    }

    /// A new element (on the callback queue).
    func push(_ item: BufferedElement<Element>, run: RunNumber) {
        let (waiting, accepted): (CheckedContinuation<Element?, any Error>?, Bool) = state.withLock { state in
            guard state.ending == nil else { return (nil, false) }
            guard let waiting = state.waiting else {
                state.queue.append((item, run))
                return (nil, true)
            }
            state.waiting = nil
            return (waiting, true)
        }
        guard accepted else {
            // The consumer is done: the element leaves the buffer unseen.
            owner?.released(item.bytes, count: 1, run: run)
            return
        }
        guard let waiting else { return }
        owner?.released(item.bytes, count: 1, run: run)
        waiting.resume(returning: item.element)
    }

    /// The run ended: elements still queued are delivered first, unless it was cancelled.
    func end(_ result: Result<Void, any Error>) {
        let owner = self.owner
        let waiting: CheckedContinuation<Element?, any Error>? = state.withLock { state in
            guard state.ending == nil else { return nil }
            state.ending = result
            state.owner = nil
            if case .failure(let error as ConnectionError) = result, error.isCancelled {
                state.queue.removeAll()
                state.head = 0
            }
            defer { state.waiting = nil }
            return state.waiting
        }
        owner?.detach(self)
        waiting?.resume(with: result.map { nil })
    }
}

/// Cancels the request when the consumer drops its `elements()` stream without reading it to the end.
final class ElementStreamLifetime<Element: Sendable>: Sendable {
    let channel: ElementChannel<Element>

    init(channel: ElementChannel<Element>) {
        self.channel = channel
    }

    deinit {
        channel.abandon()
    }
}

extension ElementChannel {
    /// The consumer is gone: a run it started is cancelled.
    func abandon() {
        let started = state.withLock { $0.started && $0.ending == nil }
        if started { owner?.cancel() }
    }
}
