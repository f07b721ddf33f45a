import Foundation

/// Whether any request is live, for an activity indicator (the original toggled the iOS status-bar
/// spinner).
///
/// Debounced so that back-to-back requests do not flicker it: ``isActive`` turns on as soon as a
/// request starts, and off only when no request has been live for ``hideDelay`` (0.25 s).
///
/// ```swift
/// let token = NetworkActivity.shared.observe { active in spinner.isHidden = !active }
/// ```
/// - SeeAlso: <doc:registry-and-debugging>
public final class NetworkActivity: Sendable {
    /// The activity signal of ``ConnectionClient/shared``, fed by the start and end of every request
    /// whose class keeps the default client.
    public static let shared = ConnectionClient.shared.activity

    /// How long no request must be live before ``isActive`` turns off, in seconds: 0.25.
    public static let hideDelay: TimeInterval = 0.25

    private struct Observer {
        let queue: DispatchQueue
        let handler: @Sendable (Bool) -> Void
    }

    private struct State {
        var liveCount = 0
        var isActive = false
        /// When the live count last fell to zero (uptime nanoseconds): the hide is due ``hideDelay`` later.
        var idleSince: UInt64 = 0
        /// A hide check is scheduled. One at a time: a run of back-to-back requests arms one timer per
        /// ``hideDelay``, not one per request (each costs the dispatch manager a wake-up).
        var hideScheduled = false
        var observers: [UUID: Observer] = [:]
    }

    private let state = Locked(State())
    private let queue = DispatchQueue(label: "ConnectionKit.activity")
    /// This instance's delay: ``hideDelay`` for the shared one; tests make their own with another.
    let delay: TimeInterval

    init(hideDelay: TimeInterval = NetworkActivity.hideDelay) {
        self.delay = hideDelay
    }

    /// Whether the indicator should show: on while a request is live, off ``hideDelay`` after the last ended.
    public var isActive: Bool { state.withLock { $0.isActive } }

    /// How many requests are live right now (not debounced).
    public var liveRequestCount: Int { state.withLock { $0.liveCount } }

    /// Calls `handler` on `queue` (default `.main`) with the current value now and with every change
    /// of ``isActive``, until the returned token is cancelled or released.
    public func observe(
        on queue: DispatchQueue = .main, _ handler: @escaping @Sendable (Bool) -> Void
    ) -> NetworkActivityObservation {
        let id = UUID()
        let current = state.withLock { state in
            state.observers[id] = Observer(queue: queue, handler: handler)
            return state.isActive
        }
        queue.async { handler(current) }
        return NetworkActivityObservation { [weak self] in
            self?.state.withLock { _ = $0.observers.removeValue(forKey: id) }
        }
    }

    /// The current value of ``isActive``, then every change of it, as a stream (ends when the
    /// listening task is cancelled).
    public var changes: AsyncStream<Bool> {
        AsyncStream { continuation in
            let observation = observe(on: queue) { continuation.yield($0) }
            continuation.onTermination = { _ in observation.cancel() }
        }
    }

    /// A request started (`+1`) or ended (`-1`).
    func requestCountChanged(by delta: Int) {
        let action: (notify: [Observer], hideAt: UInt64?) = state.withLock { state in
            state.liveCount += delta
            if state.liveCount > 0 {
                guard !state.isActive else { return ([], nil) }
                state.isActive = true
                return (Array(state.observers.values), nil)
            }
            guard state.isActive else { return ([], nil) }
            state.idleSince = DispatchTime.now().uptimeNanoseconds
            guard !state.hideScheduled else { return ([], nil) }
            state.hideScheduled = true
            return ([], state.idleSince + nanoseconds(delay))
        }
        action.notify.forEach { observer in observer.queue.async { observer.handler(true) } }
        if let due = action.hideAt { scheduleHide(at: due) }
    }

    private func nanoseconds(_ interval: TimeInterval) -> UInt64 {
        UInt64(max(0, interval) * 1_000_000_000)
    }

    private func scheduleHide(at due: UInt64) {
        queue.asyncAfter(deadline: DispatchTime(uptimeNanoseconds: due)) { [weak self] in self?.hideIfIdle() }
    }

    /// Turns the signal off when no request has been live for ``hideDelay``; when a request came and went
    /// since the check was scheduled, checks again ``hideDelay`` after that one ended.
    private func hideIfIdle() {
        let action: (notify: [Observer], recheckAt: UInt64?) = state.withLock { state in
            state.hideScheduled = false
            guard state.liveCount <= 0, state.isActive else { return ([], nil) }
            let due = state.idleSince + nanoseconds(delay)
            if DispatchTime.now().uptimeNanoseconds < due {
                state.hideScheduled = true
                return ([], due)
            }
            state.isActive = false
            return (Array(state.observers.values), nil)
        }
        action.notify.forEach { observer in observer.queue.async { observer.handler(false) } }
        if let due = action.recheckAt { scheduleHide(at: due) }
    }
}

extension NetworkActivity: RequestObserver {
    /// Counts the runs that started and have not ended.
    func request(_ request: AnyConnectionRequest, did event: RequestEvent) {
        switch event {
        case .started: requestCountChanged(by: 1)
        case .ended: requestCountChanged(by: -1)
        case .willSend, .receivedBody, .progressed, .retried: return
        }
    }
}

/// Keeps a ``NetworkActivity`` observer registered; cancel it (or let it go) to stop.
///
/// ConnectionKit's one cancellation token: the registry's event streams hold one too, released with the
/// stream, so that a listener that simply stops iterating is still removed.
public final class NetworkActivityObservation: Sendable {
    private let onCancel: Locked<(@Sendable () -> Void)?>

    /// A token that runs `onCancel` once: at ``cancel()`` or when the last reference goes away.
    init(onCancel: @escaping @Sendable () -> Void) {
        self.onCancel = Locked(onCancel)
    }

    /// Stops the observation. Idempotent.
    public func cancel() {
        let action = onCancel.withLock { action in
            defer { action = nil }
            return action
        }
        action?()
    }

    deinit { cancel() }
}
