/// When an ``OfflineQueue`` may send, as one value: idle, attempting, waiting out a retry (with its timer),
/// suspended or closed.
///
/// The queue steps it under its lock with ``handle(_:)`` and performs the returned ``Actions`` after
/// releasing the lock (cancel a timer, arm a timer, fill the window of attempts), like
/// ``RequestStateMachine``. An event that does not fit the state (a timer that was replaced, an attempt
/// ending after `close()`) changes nothing: at most it hands back the timer it brought, to cancel.
///
/// Which operations are attempted is the queue's business (its `pending` and in-flight requests); this
/// value decides only whether an attempt may start, and what a failed attempt or a wake-up leads to. It is
/// generic over the timer so that its tests step it with plain objects: no socket, no clock, no file.
struct OfflineDeliveryMachine<Timer: AnyObject> {
    /// Where delivery is.
    enum State {
        /// Nothing in flight and nothing to wait for; `wakeUp` remembers an immediate attempt asked for
        /// (``Event/attemptNow``) until an attempt starts, so that a wait decided meanwhile does not swallow it.
        case idle(wakeUp: Bool)
        /// `inFlight` attempts are being sent; `wakeUp` as for ``idle(wakeUp:)``: a failure that would wait
        /// attempts again at once instead.
        case attempting(inFlight: Int, wakeUp: Bool)
        /// Waiting for `timer` before the next attempt; `inFlight` attempts of the window still finish.
        case waiting(timer: Timer, inFlight: Int)
        /// `suspend()`: nothing starts until `resume()`; `inFlight` attempts finish.
        case suspended(inFlight: Int)
        /// `close()`: nothing starts again.
        case closed
    }

    /// Something that happened to the queue.
    enum Event {
        /// An attempt is about to be sent: allowed (``Actions/start``) when idle or attempting.
        case attemptStarting
        /// An attempt ended and no wait follows (delivered, dead-lettered, removed, cancelled).
        case attemptEnded
        /// An attempt failed and should be retried after `timer` (armed by the queue if accepted).
        case attemptFailed(retryAfter: Timer)
        /// Nothing can be attempted before `timer` (the head's class is not registered); only when
        /// nothing is in flight.
        case wait(Timer)
        /// The retry timer fired.
        case timerFired(Timer)
        /// Attempt now rather than at the end of a wait: `setReachable(true)`, `register`.
        case attemptNow
        case suspend
        /// `resume()`: leaves ``State/suspended(inFlight:)``, and like ``attemptNow`` otherwise.
        case resume
        case close
    }

    /// What the queue does after the event, outside its lock, in this order.
    struct Actions: Equatable {
        /// The attempt asked for by ``Event/attemptStarting`` may be sent.
        var start = false
        /// A timer that is no longer wanted (replaced, cut short, refused).
        var cancel: Timer?
        /// The timer to arm for the wait the queue decided.
        var arm: Timer?
        /// Fill the window of attempts now.
        var attempt = false

        static var none: Actions { Actions() }

        static func == (lhs: Actions, rhs: Actions) -> Bool {
            lhs.start == rhs.start && lhs.cancel === rhs.cancel && lhs.arm === rhs.arm && lhs.attempt == rhs.attempt
        }
    }

    // Written only by the transitions behind `handle(_:)` (and by tests, to set up a state).
    /// Where delivery is.
    var state = State.idle(wakeUp: false)

    /// Whether ``close`` was handled.
    var isClosed: Bool {
        if case .closed = state { return true }
        return false
    }

    /// Whether an attempt may start now (the window is the queue's to check).
    var mayAttempt: Bool {
        switch state {
        case .idle, .attempting: return true
        case .waiting, .suspended, .closed: return false
        }
    }

    /// The attempts in flight, as counted by ``Event/attemptStarting`` and the endings.
    var inFlight: Int {
        switch state {
        case .idle, .closed: return 0
        case .attempting(let count, _), .waiting(_, let count), .suspended(let count): return count
        }
    }

    /// The timer armed for the current wait, if any.
    var timer: Timer? {
        if case .waiting(let timer, _) = state { return timer }
        return nil
    }
}
