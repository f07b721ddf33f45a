import Dispatch

extension RequestStateMachine {
    // MARK: - Reading

    /// The run in progress (from start until its ending is visible), with its values.
    var activeRun: Run? {
        switch state {
        case .preparing(let run), .transferring(let run, _), .waitingForRetry(let run, _),
            .waitingForStage(let run), .committing(let run, _):
            return run
        case .idle, .delivering, .ended:
            return nil
        }
    }

    /// The number of the run in progress; `nil` when none is.
    var runningNumber: RunNumber? { activeRun?.number }

    /// Whether `run` is in progress.
    func isRunning(_ run: RunNumber) -> Bool { activeRun?.number == run }

    /// Whether events of transfer `number` still count.
    func isCurrent(_ number: TransferNumber) -> Bool {
        guard case .transferring(_, let transferring) = state else { return false }
        return transferring.number == number
    }

    /// The state as ``AnyConnectionRequest/state`` shows it.
    var connectionState: ConnectionState {
        switch state {
        case .idle: return .idle
        case .preparing, .transferring, .waitingForRetry, .waitingForStage, .committing: return .running
        case .delivering(let ending), .ended(let ending): return ending.state
        }
    }

    /// The attempt in progress, or the last run's last attempt; 0 before the first start.
    var attempt: Int {
        switch state {
        case .idle: return 0
        case .delivering(let ending), .ended(let ending): return ending.attempt
        default: return activeRun?.attempt ?? 0
        }
    }

    /// The transfer in flight, once the transport returned it.
    var transfer: Transfer? {
        guard case .transferring(_, let transferring) = state else { return nil }
        return transferring.transfer
    }

    // MARK: - Starting

    mutating func start() -> Action {
        if let run = activeRun { return .joinRun(run.number) }
        lastRun = lastRun.next
        state = .preparing(Run(number: lastRun))
        return .startRun(lastRun)
    }

    mutating func armDeadline(_ number: RunNumber, at time: DispatchTime, timer: Timer) -> Action {
        guard var run = activeRun, run.number == number, run.deadline == nil else { return .cancelTimer(timer) }
        if case .committing = state { return .cancelTimer(timer) }
        run.deadline = (time, timer)
        replaceRun(with: run)
        return .proceed
    }

    // MARK: - Transfers

    mutating func beginTransfer(_ number: RunNumber) -> Action {
        guard case .preparing(var run) = state, run.number == number, run.attempt > 0 else { return .ignore }
        run.transfers += 1
        let transfer = TransferNumber(run: number, index: run.transfers)
        state = .transferring(run, Transferring(number: transfer))
        return .startTransfer(transfer)
    }

    /// Fills an empty slot of transfer `number` through `put`; `false` when the transfer is not in flight
    /// or `put` finds the slot taken. A closure rather than a key path: a key path into a generic type is
    /// built at run time on every call (about 2 % of a small GET's CPU on libcurl).
    mutating func fill(for number: TransferNumber, _ put: (inout Transferring) -> Bool) -> Bool {
        guard case .transferring(let run, var transferring) = state, transferring.number == number,
            put(&transferring)
        else { return false }
        state = .transferring(run, transferring)
        return true
    }

    mutating func complete(_ number: TransferNumber) -> Action {
        guard case .transferring(let run, let transferring) = state, transferring.number == number else {
            return .ignore
        }
        state = .preparing(run)
        return .transferEnded(attempt: run.attempt, transfer: transferring.transfer, idleTimer: transferring.idleTimer)
    }

    // MARK: - Retries and waits for a stage

    mutating func scheduleRetry(_ number: RunNumber, firesAt time: DispatchTime, timer: Timer) -> Action {
        guard case .preparing(let run) = state, run.number == number, run.attempt > 0 else {
            return .cancelTimer(timer)
        }
        if let deadline = run.deadline, time >= deadline.time { return .cancelTimer(timer) }
        state = .waitingForRetry(run, backoff: timer)
        return .scheduleRetry(attempt: run.attempt + 1)
    }

    /// A stage takes the failed attempt over; the run waits for it, once per run.
    mutating func startStageWait(_ number: RunNumber) -> Action {
        guard case .preparing(var run) = state, run.number == number, run.attempt > 0, !run.waitedForStage else {
            return .ignore
        }
        run.waitedForStage = true
        state = .waitingForStage(run)
        return .waitForStage(attempt: run.attempt + 1)
    }

    /// Where the next attempt comes from.
    enum Wait { case start, retry, stage }

    mutating func resumeAttempts(_ number: RunNumber, from wait: Wait) -> Action {
        var resumed: Run
        switch (state, wait) {
        case (.waitingForRetry(let run, _), .retry), (.waitingForStage(let run), .stage):
            resumed = run
        case (.preparing(let run), .start) where run.attempt == 0:
            resumed = run
        default:
            return .ignore
        }
        guard resumed.number == number else { return .ignore }
        resumed.attempt += 1
        state = .preparing(resumed)
        return .beginAttempt(number, attempt: resumed.attempt)
    }

    /// Stops what the run waits for, so that a stage's answer can take its place: the transfer in flight ends
    /// (``Action/transferEnded(attempt:transfer:idleTimer:)``), the backoff timer is cancelled
    /// (``Action/cancelTimer(_:)``); a run already between transfers proceeds. A run waiting for a stage, or
    /// before its first attempt, is left alone (``Action/ignore``).
    mutating func interruptForAnswer(_ number: RunNumber) -> Action {
        switch state {
        case .transferring(let run, let transferring) where run.number == number:
            state = .preparing(run)
            return .transferEnded(
                attempt: run.attempt, transfer: transferring.transfer, idleTimer: transferring.idleTimer)
        case .waitingForRetry(let run, let backoff) where run.number == number:
            state = .preparing(run)
            return .cancelTimer(backoff)
        case .preparing(let run) where run.number == number && run.attempt > 0:
            return .proceed
        default:
            return .ignore
        }
    }

    // MARK: - Ending

    mutating func end(_ number: RunNumber, _ outcome: RunOutcome, commits: Bool) -> Action {
        guard let run = activeRun, run.number == number else { return .ignore }
        var transfer: Transfer?
        var timers = [run.deadline?.timer].compactMap { $0 }
        switch state {
        case .transferring(_, let transferring):
            transfer = transferring.transfer
            timers += [transferring.idleTimer].compactMap { $0 }
        case .waitingForRetry(_, let backoff):
            timers.append(backoff)
        case .committing:
            return .ignore
        default:
            break
        }
        var ended = run
        ended.deadline = nil
        if commits {
            state = .committing(ended, outcome)
        } else {
            state = .delivering(Ending(run: number, state: outcome.phase, attempt: run.attempt))
        }
        let closing = Closing(run: number, outcome: outcome, transfer: transfer, timers: timers, commits: commits)
        return .endRun(closing)
    }

    mutating func commitEnded(_ number: RunNumber, failure: ConnectionError?) -> Action {
        guard case .committing(let run, let claimed) = state, run.number == number else { return .ignore }
        let outcome = failure.map { RunOutcome.failure($0) } ?? claimed
        state = .delivering(Ending(run: number, state: outcome.phase, attempt: run.attempt))
        return .deliver(outcome)
    }

    /// Puts `run` back into the state it came from.
    private mutating func replaceRun(with run: Run) {
        switch state {
        case .preparing: state = .preparing(run)
        case .transferring(_, let transferring): state = .transferring(run, transferring)
        case .waitingForRetry(_, let backoff): state = .waitingForRetry(run, backoff: backoff)
        case .waitingForStage: state = .waitingForStage(run)
        case .committing(_, let outcome): state = .committing(run, outcome)
        case .idle, .delivering, .ended: break
        }
    }
}
