import Foundation

/// One listener's queue of events: start, retry and end events are always kept, and so is each
/// direction's last progress report; other progress events beyond ``ConnectionRegistry/eventBufferLimit``
/// waiting are dropped, so a slow listener never slows a request or grows without bound on progress.
final class EventListener: Sendable {
    private struct State {
        var queue: [ConnectionEvent] = []
        var head = 0
        var pendingProgress = 0
        var waiter: CheckedContinuation<ConnectionEvent?, Never>?
        var closed = false
    }

    private let state = Locked(State())

    /// Queues `event` for the listener. A progress event finds room only while fewer than
    /// ``ConnectionRegistry/eventBufferLimit`` wait, unless it is its direction's `last`: a listener that
    /// fell behind still learns that the bytes were complete (such reports are few, one per direction
    /// and attempt, like the end events).
    func push(_ event: ConnectionEvent, last: Bool = false) {
        let waiter: CheckedContinuation<ConnectionEvent?, Never>? = state.withLock { state in
            guard !state.closed else { return nil }
            if let waiter = state.waiter {
                state.waiter = nil
                return waiter
            }
            if case .progressed = event.kind {
                guard last || state.pendingProgress < ConnectionRegistry.eventBufferLimit else { return nil }
                state.pendingProgress += 1
            }
            state.queue.append(event)
            return nil
        }
        waiter?.resume(returning: event)
    }

    func next() async -> ConnectionEvent? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<ConnectionEvent?, Never>) in
                let ready: ConnectionEvent?? = state.withLock { state in
                    if state.head < state.queue.count {
                        let event = state.queue[state.head]
                        state.head += 1
                        if case .progressed = event.kind { state.pendingProgress -= 1 }
                        if state.head > 1024, state.head * 2 > state.queue.count {
                            state.queue.removeFirst(state.head)
                            state.head = 0
                        }
                        return .some(event)
                    }
                    if state.closed { return .some(nil) }
                    state.waiter = continuation
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            close()
        }
    }

    /// Ends the stream: a waiting `next()` returns `nil`.
    func close() {
        let waiter = state.withLock { state in
            state.closed = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: nil)
    }
}
