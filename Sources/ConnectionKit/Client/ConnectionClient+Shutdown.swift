import Dispatch
import Foundation

/// Where a client is in its life: running, draining its runs after a shutdown began, stopping its
/// transports, or stopped. One per client, behind its lock.
struct ShutdownState {
    enum Phase: Equatable {
        case running, draining, stopping, stopped
    }

    var phase = Phase.running
    /// Runs admitted whose ending has not been reported to the observers and queued for delivery yet.
    var liveRuns = 0
    /// Called once the client stopped: the callers of every shutdown.
    var whenStopped: [@Sendable () -> Void] = []
}

extension ConnectionClient {
    // MARK: - Shutting down

    /// Shuts the client down and returns once it is stopped.
    ///
    /// From the call on, no request of the client starts: a ``AnyConnectionRequest/start()`` ends at once
    /// on the failure path with `ConnectionError.Kind.clientShutDown`, and nothing is sent. Requests in
    /// flight run on for up to `gracePeriod` seconds (default 30), then the ones still running are
    /// cancelled; each ends exactly once, as any request does. When every run has ended, the client's
    /// transports are stopped: its libcurl loop threads have ended (joined) and its URLSessions are
    /// invalidated, so that when this returns no thread of the client is running. Endings are
    /// delivered on each request's `callbackQueue` as usual: when this returns every ending is queued
    /// there (or, under ``ConnectionClient/Delivery/immediate``, delivered in place), and a handler may
    /// still be running (or queued).
    ///
    /// Calling it again (or ``shutdownAndWait(gracePeriod:)``) waits for the same shutdown; the first
    /// grace period counts. A shut-down client stays shut down.
    ///
    /// ``ConnectionClient/shared`` can be shut down too, once, at the end of a process (a service's
    /// `SIGTERM`): it stops the process's transports, ``ConnectionTransport/urlSession`` and
    /// ``ConnectionTransport/libcurl()``, for good, so that a transfer started on them afterwards (by any
    /// client, e.g. a class that overrides ``AnyConnectionRequest/transport``) fails with `clientShutDown`.
    public func shutdown(gracePeriod: TimeInterval = 30) async {
        await withCheckedContinuation { continuation in
            beginShutdown(gracePeriod: gracePeriod) { continuation.resume() }
        }
    }

    /// ``shutdown(gracePeriod:)`` for synchronous code (a command-line tool's `main`): blocks the calling
    /// thread until the client is stopped. It does not wait for handlers, so it may be called on the queue
    /// that requests deliver to; it must not be called from one of ConnectionKit's own callbacks.
    public func shutdownAndWait(gracePeriod: TimeInterval = 30) {
        let stopped = DispatchSemaphore(value: 0)
        beginShutdown(gracePeriod: gracePeriod) { stopped.signal() }
        stopped.wait()
    }

    /// Whether a shutdown began: no request of the client starts any more.
    public var isShutDown: Bool { shutdownState.withLock { $0.phase != .running } }

    /// Starts the shutdown (the first call) and calls `whenStopped` once the client is stopped.
    func beginShutdown(gracePeriod: TimeInterval, whenStopped: @escaping @Sendable () -> Void) {
        let (first, stopNow, stopped) = shutdownState.withLock { state -> (Bool, Bool, Bool) in
            guard state.phase != .stopped else { return (false, false, true) }
            state.whenStopped.append(whenStopped)
            guard state.phase == .running else { return (false, false, false) }
            state.phase = state.liveRuns == 0 ? .stopping : .draining
            return (true, state.phase == .stopping, false)
        }
        if stopped { whenStopped() }
        guard first else { return }
        if stopNow {
            stopSoon()
        } else {
            let grace = RetryPolicy.sanitizedWait(gracePeriod)
            DispatchQueue.global().asyncAfter(deadline: .now() + grace) { [self] in cancelWhileDraining() }
        }
    }

    /// The grace period is over: cancels every live run, and looks again shortly for a run that was
    /// admitted but not yet registered at the first look, until none is left.
    private func cancelWhileDraining() {
        guard shutdownState.withLock({ $0.phase == .draining }) else { return }
        registry.cancelAll()
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.05) { [self] in cancelWhileDraining() }
    }

    // MARK: - Counting runs

    /// Counts a run that is starting; `false` when a shutdown began and the run must not start (it is
    /// counted anyway, and its ending, like any other, is reported with ``runEnded()``).
    func admitRun() -> Bool {
        shutdownState.withLock { state in
            state.liveRuns += 1
            return state.phase == .running
        }
    }

    /// A run's ending was reported to the observers and queued for delivery. The last one of a draining
    /// client stops it.
    func runEnded() {
        let stop = shutdownState.withLock { state in
            state.liveRuns -= 1
            guard state.phase == .draining, state.liveRuns == 0 else { return false }
            state.phase = .stopping
            return true
        }
        if stop { stopSoon() }
    }

    /// Stops the transports off the current thread: the last run may have ended on a transport's own
    /// thread, which stopping joins.
    private func stopSoon() {
        DispatchQueue.global().async { [self] in
            stopOwnedTransports()
            let waiting = shutdownState.withLock { state in
                state.phase = .stopped
                defer { state.whenStopped = [] }
                return state.whenStopped
            }
            waiting.forEach { $0() }
        }
    }
}
