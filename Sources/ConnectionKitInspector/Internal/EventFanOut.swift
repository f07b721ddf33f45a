import ConnectionKit
import Foundation
import HTTPServerCore

/// Relays the registry's events to the pages that follow them, each through a bounded queue: a page
/// that does not keep up loses updates (and is told to reload the list), the app never waits.
final class EventFanOut: Sendable {
    /// One page's queue of encoded events.
    final class Subscriber: Sendable {
        enum Next {
            case events([Data])
            case resync
            case idle
            case closed
        }

        private struct Queue {
            var pending: [Data] = []
            var lost = false
            var closed = false
        }

        private let queue = Locked(Queue())
        private let signal = DispatchSemaphore(value: 0)

        func push(_ event: Data) {
            queue.withLock { queue in
                guard !queue.closed else { return }
                if queue.pending.count >= ConnectionInspector.eventQueueLimit {
                    queue.pending.removeAll()
                    queue.lost = true
                } else {
                    queue.pending.append(event)
                }
            }
            signal.signal()
        }

        func close() {
            queue.withLock { $0.closed = true }
            signal.signal()
        }

        /// What is waiting, after waiting up to `timeout` seconds for something.
        func next(timeout: TimeInterval) -> Next {
            _ = signal.wait(timeout: .now() + timeout)
            return queue.withLock { queue in
                if queue.closed { return .closed }
                if queue.lost {
                    queue.lost = false
                    queue.pending.removeAll()
                    return .resync
                }
                guard !queue.pending.isEmpty else { return .idle }
                defer { queue.pending.removeAll(keepingCapacity: true) }
                return .events(queue.pending)
            }
        }
    }

    private struct State {
        var subscribers: [ObjectIdentifier: Subscriber] = [:]
        var pump: Task<Void, Never>?
    }

    private let state = Locked(State())

    /// Starts relaying `registry`'s events.
    func start(_ registry: ConnectionRegistry) {
        let events = registry.events
        let pump = Task.detached { [weak self] in
            for await event in events {
                guard let self else { return }
                self.publish(event)
            }
        }
        let previous = state.withLock { state in
            defer { state.pump = pump }
            return state.pump
        }
        previous?.cancel()
    }

    /// Stops relaying and ends every page's stream.
    func stop() {
        let (pump, subscribers) = state.withLock { state in
            defer { (state.pump, state.subscribers) = (nil, [:]) }
            return (state.pump, Array(state.subscribers.values))
        }
        pump?.cancel()
        subscribers.forEach { $0.close() }
    }

    /// A new page's queue; `nil` when ``ConnectionInspector/maximumEventStreams`` pages follow already.
    func subscribe() -> Subscriber? {
        let subscriber = Subscriber()
        let added = state.withLock { state -> Bool in
            guard state.pump != nil, state.subscribers.count < ConnectionInspector.maximumEventStreams else {
                return false
            }
            state.subscribers[ObjectIdentifier(subscriber)] = subscriber
            return true
        }
        return added ? subscriber : nil
    }

    func unsubscribe(_ subscriber: Subscriber) {
        state.withLock { _ = $0.subscribers.removeValue(forKey: ObjectIdentifier(subscriber)) }
        subscriber.close()
    }

    private func publish(_ event: ConnectionEvent) {
        let subscribers = state.withLock { Array($0.subscribers.values) }
        guard !subscribers.isEmpty else { return }
        let data = InspectorJSON.encode(EventView(event))
        subscribers.forEach { $0.push(data) }
    }
}
