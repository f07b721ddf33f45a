extension OfflineDeliveryMachine {
    /// Steps the machine. Never traps: an event that does not fit is a no-op (handing back its timer).
    mutating func handle(_ event: Event) -> Actions {
        switch event {
        case .attemptStarting: return attemptStarting()
        case .attemptEnded: return attemptEnded(retryAfter: nil)
        case .attemptFailed(let timer): return attemptEnded(retryAfter: timer)
        case .wait(let timer): return wait(timer)
        case .timerFired(let timer): return timerFired(timer)
        case .attemptNow: return attemptNow()
        case .suspend: return suspend()
        case .resume:
            guard case .suspended(let count) = state else { return attemptNow() }
            state = Self.running(inFlight: count, wakeUp: true)
            return Actions(attempt: true)
        case .close:
            let timer = self.timer
            state = .closed
            return Actions(cancel: timer)
        }
    }

    /// Idle or attempting with `inFlight` attempts.
    private static func running(inFlight: Int, wakeUp: Bool) -> State {
        inFlight > 0 ? .attempting(inFlight: inFlight, wakeUp: wakeUp) : .idle(wakeUp: wakeUp)
    }

    private mutating func attemptStarting() -> Actions {
        switch state {
        case .idle:
            state = .attempting(inFlight: 1, wakeUp: false)
        case .attempting(let count, _):
            // The attempt that starts answers the wake-up.
            state = .attempting(inFlight: count + 1, wakeUp: false)
        case .waiting, .suspended, .closed:
            return .none
        }
        return Actions(start: true)
    }

    private mutating func attemptEnded(retryAfter timer: Timer?) -> Actions {
        switch state {
        case .idle(let wakeUp):
            // An ending not counted (never started here): nothing changes but the wait.
            guard let timer else { return Actions(attempt: true) }
            guard wakeUp else { return arm(timer, inFlight: 0) }
            state = .idle(wakeUp: false)
            return Actions(cancel: timer, attempt: true)
        case .attempting(let count, let wakeUp):
            let left = max(0, count - 1)
            guard let timer else {
                state = Self.running(inFlight: left, wakeUp: wakeUp)
                return Actions(attempt: true)
            }
            if wakeUp {
                // Asked for while this attempt was failing: the wait it would start is skipped.
                state = Self.running(inFlight: left, wakeUp: false)
                return Actions(cancel: timer, attempt: true)
            }
            return arm(timer, inFlight: left)
        case .waiting(let current, let count):
            guard let timer else {
                state = .waiting(timer: current, inFlight: max(0, count - 1))
                return .none
            }
            state = .waiting(timer: timer, inFlight: max(0, count - 1))
            return Actions(cancel: current, arm: timer)
        case .suspended(let count):
            state = .suspended(inFlight: max(0, count - 1))
            return Actions(cancel: timer)
        case .closed:
            return Actions(cancel: timer)
        }
    }

    private mutating func arm(_ timer: Timer, inFlight: Int) -> Actions {
        state = .waiting(timer: timer, inFlight: inFlight)
        return Actions(arm: timer)
    }

    private mutating func wait(_ timer: Timer) -> Actions {
        switch state {
        case .idle(let wakeUp):
            guard !wakeUp else {
                // A class was registered (or the network reported back) since the head was looked at.
                state = .idle(wakeUp: false)
                return Actions(cancel: timer, attempt: true)
            }
            return arm(timer, inFlight: 0)
        case .attempting, .waiting, .suspended, .closed:
            // Attempts in flight look again when they end; a wait or a suspension is already there.
            return Actions(cancel: timer)
        }
    }

    private mutating func timerFired(_ timer: Timer) -> Actions {
        guard case .waiting(let current, let count) = state, current === timer else { return .none }
        state = Self.running(inFlight: count, wakeUp: false)
        return Actions(attempt: true)
    }

    private mutating func attemptNow() -> Actions {
        switch state {
        case .idle:
            state = .idle(wakeUp: true)
            return Actions(attempt: true)
        case .attempting(let count, _):
            state = .attempting(inFlight: count, wakeUp: true)
            return Actions(attempt: true)
        case .waiting(let timer, let count):
            state = Self.running(inFlight: count, wakeUp: true)
            return Actions(cancel: timer, attempt: true)
        case .suspended, .closed:
            return .none
        }
    }

    private mutating func suspend() -> Actions {
        switch state {
        case .idle:
            state = .suspended(inFlight: 0)
        case .attempting(let count, _):
            state = .suspended(inFlight: count)
        case .waiting(let timer, let count):
            state = .suspended(inFlight: count)
            return Actions(cancel: timer)
        case .suspended, .closed:
            break
        }
        return .none
    }
}
