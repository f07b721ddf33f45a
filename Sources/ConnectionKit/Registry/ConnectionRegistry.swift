import Foundation

/// Every live request of one ``ConnectionClient``: a typed, thread-safe view that debug tooling can
/// query and act on (the original's static dictionary of connections, made safe).
///
/// A started request is held here until it ends, so fire-and-forget works; it is forgotten before
/// its completion or failure handler runs. Queries return live requests in start order.
///
/// ```swift
/// if ConnectionRegistry.shared.isInUse(FetchEvents.self) { return }
/// ConnectionRegistry.shared.cancelAll(FeedRequest.self)   // FeedRequest and its subclasses
/// ```
/// - SeeAlso: <doc:registry-and-debugging>
public final class ConnectionRegistry: Sendable {
    /// The registry of ``ConnectionClient/shared``: every request whose class keeps the default client.
    public static let shared = ConnectionClient.shared.registry

    private struct Entry {
        let request: AnyConnectionRequest
        let order: UInt64
        /// The run that registered it: only that run's ending removes it.
        var run: RunNumber
    }

    private struct State {
        var entries: [ObjectIdentifier: Entry] = [:]
        var nextOrder: UInt64 = 0
        var listeners: [UUID: EventListener] = [:]
    }

    private let state = Locked(State())
    /// The history and statistics (``history(of:outcome:since:until:)``, ``statistics()``).
    let recorder = HistoryRecorder()

    init() {}

    // MARK: - Queries

    /// The live requests, in start order.
    public var activeRequests: [AnyConnectionRequest] {
        state.withLock { state in
            state.entries.values.sorted { $0.order < $1.order }.map(\.request)
        }
    }

    /// How many requests are live.
    public var count: Int { state.withLock { $0.entries.count } }

    /// The live requests of class `type` or a subclass of it, in start order.
    public func requests<T: AnyConnectionRequest>(of type: T.Type) -> [T] {
        activeRequests.filter { Self.isKind($0, of: type) }.compactMap { $0 as? T }
    }

    /// Whether a request of class `type` (or a subclass) is live: the original's
    /// `connectionRequestInUse:`.
    public func isInUse<T: AnyConnectionRequest>(_ type: T.Type) -> Bool {
        state.withLock { state in state.entries.values.contains { Self.isKind($0.request, of: type) } }
    }

    /// Snapshots of the live requests, in start order, secrets redacted.
    public func snapshot() -> [ConnectionSnapshot] {
        activeRequests.map { $0.makeSnapshot() }
    }

    // MARK: - Cancelling

    /// Cancels every live request of class `type` or a subclass; each ends once with
    /// `ConnectionError.cancelled`. Returns at once.
    public func cancelAll<T: AnyConnectionRequest>(_ type: T.Type) {
        let matching = state.withLock { state in
            state.entries.values.filter { Self.isKind($0.request, of: type) }.map(\.request)
        }
        matching.forEach { $0.cancel() }
    }

    /// Cancels every live request. Returns at once.
    public func cancelAll() {
        let all = state.withLock { $0.entries.values.map(\.request) }
        all.forEach { $0.cancel() }
    }

    // MARK: - Events

    /// A new stream of every request's events from now on. Any number of listeners may listen;
    /// none can slow requests down: a listener that falls more than ``eventBufferLimit`` progress
    /// events behind misses progress events, never start, retry or end events, nor a direction's last
    /// progress report (all its bytes, or the transfer over). The stream ends
    /// (and stops buffering) when the listening task is cancelled or the stream and its iterator
    /// are released, e.g. after `break` out of a `for await` loop.
    public var events: AsyncStream<ConnectionEvent> {
        makeEventStream().stream
    }

    /// A new event stream and its listener's key in the registry.
    func makeEventStream() -> (stream: AsyncStream<ConnectionEvent>, id: UUID) {
        let id = UUID()
        let listener = EventListener()
        state.withLock { $0.listeners[id] = listener }
        // Released with the stream's producer closure, i.e. when nobody can read any more.
        let subscription = NetworkActivityObservation { [weak self] in
            self?.state.withLock { _ = $0.listeners.removeValue(forKey: id) }
            listener.close()
        }
        let stream = AsyncStream(
            unfolding: {
                let event = await listener.next()
                withExtendedLifetime(subscription) {}
                return event
            },
            onCancel: { subscription.cancel() })
        return (stream, id)
    }

    /// Progress events kept per listener before further ones (except a direction's last) are dropped. 256.
    public static let eventBufferLimit = 256

    // MARK: - Internal

    /// The keys of the current listeners.
    var listenerIDs: Set<UUID> { state.withLock { Set($0.listeners.keys) } }

    /// The listener whose key is `id`, while it listens.
    func listener(_ id: UUID) -> EventListener? { state.withLock { $0.listeners[id] } }

    /// Whether anybody listens to events (checked before building one).
    var hasListeners: Bool { state.withLock { !$0.listeners.isEmpty } }

    /// Adds run `run` of `request`. Called outside the request's lock, so the ending of the run may
    /// already have unregistered it: the lifecycle then calls ``unregister(_:run:)`` again afterwards.
    /// An entry for a later run is kept (a late call for an earlier run changes nothing).
    /// The registry takes no other lock while it holds its own.
    func register(_ request: AnyConnectionRequest, run: RunNumber) {
        state.withLock { state in
            let key = ObjectIdentifier(request)
            if let entry = state.entries[key] {
                if entry.run < run { state.entries[key]?.run = run }
                return
            }
            state.entries[key] = Entry(request: request, order: state.nextOrder, run: run)
            state.nextOrder &+= 1
        }
    }

    /// Removes `request` if run `run` is the one registered.
    func unregister(_ request: AnyConnectionRequest, run: RunNumber) {
        state.withLock { state in
            let key = ObjectIdentifier(request)
            guard state.entries[key]?.run == run else { return }
            state.entries.removeValue(forKey: key)
        }
    }

    /// Whether `request` is an instance of `type` or of one of its subclasses, decided on the
    /// dynamic class (so a metatype held as `AnyConnectionRequest.Type` matches correctly).
    static func isKind(_ request: AnyConnectionRequest, of type: AnyConnectionRequest.Type) -> Bool {
        var current: AnyClass? = Swift.type(of: request)
        while let candidate = current {
            if candidate == type { return true }
            current = _getSuperclass(candidate)
        }
        return false
    }
}

extension ConnectionRegistry: RequestObserver {
    /// Feeds the event streams (``events``).
    func request(_ request: AnyConnectionRequest, did event: RequestEvent) {
        if case .receivedBody = event { return }
        let listeners = state.withLock { Array($0.listeners.values) }
        guard !listeners.isEmpty else { return }
        let snapshot = request.makeSnapshot()
        let kind: ConnectionEvent.Kind
        var last = false
        switch event {
        case .receivedBody: return
        case .started: kind = .started
        // The snapshot of `started` has no URL yet: this one gives each transfer's, before any byte moves.
        case .willSend: kind = .sending
        case .progressed(let progress, let isLast): (kind, last) = (.progressed(progress), isLast)
        case .retried(let attempt, let delay, let error): kind = .retried(attempt: attempt, delay: delay, error: error)
        case .ended(.success): kind = .finished(statusCode: snapshot.statusCode)
        case .ended(.failure(let error)): kind = .failed(error)
        case .ended(.cancelled): kind = .cancelled
        }
        let event = ConnectionEvent(kind: kind, snapshot: snapshot, date: Date())
        listeners.forEach { $0.push(event, last: last) }
    }
}
