import Dispatch

/// The whole lifecycle of a request as one value: which run, which attempt, which transfer, which
/// timer, and whether the ending is claimed, committed or delivered.
///
/// The request steps it under its lock with ``handle(_:)`` and performs the returned ``Action``
/// after releasing the lock (cancelling a transfer, scheduling a timer, delivering an ending), so
/// no lock is ever held while another is taken and no hook or handler runs under a lock. An event
/// that does not fit the state (late, stale, or for another run) changes nothing and returns
/// ``Action/ignore``, or hands back the resource it brought so that it can be released.
///
/// Generic over the transfer and the timer so that its tests step it with plain values: no
/// socket, no dispatch source, no clock.
struct RequestStateMachine<Transfer, Timer> {
    /// What a running request is doing.
    enum State {
        /// Never started.
        case idle
        /// Building the next transfer of an attempt, or deciding what follows the one that ended.
        case preparing(Run)
        /// A transfer is in flight.
        case transferring(Run, Transferring)
        /// Waiting out a retry's backoff.
        case waitingForRetry(Run, backoff: Timer)
        /// Waiting for a stage that took a failed attempt over (the authorization refresh after a `401`).
        case waitingForStage(Run)
        /// The ending is claimed (nothing else can end the run) and a saved file is being moved
        /// into place; readers still see `.running`, so an ending is never shown and then changed.
        case committing(Run, RunOutcome)
        /// The ending is visible and being delivered on the callback queue.
        case delivering(Ending)
        /// The ending was delivered.
        case ended(Ending)
    }

    /// The current run's own values.
    struct Run {
        let number: RunNumber
        /// The attempt in progress, from 1; 0 until the first one begins.
        var attempt = 0
        /// How many transfers (attempts and redirect hops) the run began.
        var transfers = 0
        /// Whether the run already waited for a stage (a run does so once: no refresh loop).
        var waitedForStage = false
        /// The retry policy's deadline for the whole run, and its timer.
        var deadline: (time: DispatchTime, timer: Timer)?
    }

    /// The transfer in flight.
    struct Transferring {
        let number: TransferNumber
        /// `nil` until the transport returned it.
        var transfer: Transfer?
        /// Fires when the transfer goes quiet for `timeoutInterval`.
        var idleTimer: Timer?
    }

    /// How a run ended, as readers of the request see it.
    struct Ending {
        let run: RunNumber
        /// `.finished`, `.failed` or `.cancelled`.
        let state: ConnectionState
        let attempt: Int
    }

    /// What ended a run, and what the request must release.
    struct Closing {
        let run: RunNumber
        let outcome: RunOutcome
        /// The transfer in flight, to cancel.
        let transfer: Transfer?
        /// Every timer of the run, to cancel.
        let timers: [Timer]
        /// Whether a commit runs before the ending is visible (``Event/commitEnded(_:failure:)`` follows).
        let commits: Bool
    }

    // Written only by the transitions behind `handle(_:)` (in RequestStateMachine+Transitions.swift).
    /// Where the request is.
    var state: State = .idle
    /// The last run started (or ``RunNumber/beforeFirst``).
    var lastRun = RunNumber.beforeFirst
}

extension RequestStateMachine {
    /// Something that happened to the request.
    enum Event {
        /// `start()`: a new run, or joining the one in progress.
        case start
        /// `cancel()`: ends the current run, if any, with `.cancelled`.
        case cancel
        /// The run's first attempt begins (not when the run was cancelled before it).
        case firstAttempt(RunNumber)
        /// The run's deadline timer was created; it fires at `time`.
        case deadlineArmed(RunNumber, at: DispatchTime, timer: Timer)
        /// A transfer of the current attempt is about to be sent.
        case beginTransfer(RunNumber)
        /// The transport returned the transfer's handle.
        case transferCreated(TransferNumber, Transfer)
        /// The transfer's idle timer was created.
        case idleTimerArmed(TransferNumber, Timer)
        /// A response head, body bytes or upload progress arrived.
        case response(TransferNumber)
        case data(TransferNumber)
        case sent(TransferNumber)
        /// The idle timer fired (the request then checks how long the transfer was quiet).
        case idleTimerFired(TransferNumber)
        /// The transfer's end is known (completion, failure, redirect, restart): it stops counting.
        case completed(TransferNumber)
        /// A retry was decided; its backoff timer fires at `firesAt`.
        case retryScheduled(RunNumber, firesAt: DispatchTime, timer: Timer)
        /// The backoff timer fired.
        case backoffFired(RunNumber)
        /// A stage takes a failed attempt over and the run waits for it (the authorization refresh).
        case stageWaitStarted(RunNumber)
        /// The stage is done: the next attempt begins (a failed wait ends the run with ``end(_:_:commits:)``).
        case stageWaitEnded(RunNumber)
        /// The run's deadline passed and a stage answers the run instead (the cache, with a stored response):
        /// the transfer in flight or the backoff stops, and the run is between transfers again (only after its
        /// first attempt began).
        case interruptedForAnswer(RunNumber)
        /// The run ends with `outcome`; `commits` when a commit must run before it is visible.
        case end(RunNumber, RunOutcome, commits: Bool)
        /// The commit ran; `failure` replaces the outcome when it failed.
        case commitEnded(RunNumber, failure: ConnectionError?)
        /// The ending's handlers ran.
        case delivered(RunNumber)
    }

    /// What the request does next, outside its lock.
    enum Action {
        /// The event does not fit the state: nothing changed, nothing to do.
        case ignore
        /// The event counts: go on with it.
        case proceed
        /// A new run began: register it, arm its deadline, send its first attempt.
        case startRun(RunNumber)
        /// A run is in progress: wait for its ending.
        case joinRun(RunNumber)
        /// Build and send attempt number `attempt`.
        case beginAttempt(RunNumber, attempt: Int)
        /// Send this transfer.
        case startTransfer(TransferNumber)
        /// The transfer arrived after its run moved on: stop it and drop its body.
        case abandonTransfer(Transfer)
        /// The timer is not wanted (its transfer or run moved on, or a retry would pass the deadline).
        case cancelTimer(Timer)
        /// The transfer stopped counting: stop its idle timer; `transfer` is what the transport returned.
        case transferEnded(attempt: Int, transfer: Transfer?, idleTimer: Timer?)
        /// Schedule the retry's timer.
        case scheduleRetry(attempt: Int)
        /// Wait for the stage, then start attempt `attempt`.
        case waitForStage(attempt: Int)
        /// The run ended: release what it held, then commit (if any) and deliver.
        case endRun(Closing)
        /// The commit ran: deliver `outcome`.
        case deliver(RunOutcome)
    }

    /// Steps the machine. Never traps: an event that does not fit is a no-op.
    mutating func handle(_ event: Event) -> Action {
        switch event {
        case .start: return start()
        case .cancel: return activeRun.map { end($0.number, .cancelled, commits: false) } ?? .ignore
        case .firstAttempt(let run): return resumeAttempts(run, from: .start)
        case .deadlineArmed(let run, let time, let timer): return armDeadline(run, at: time, timer: timer)
        case .beginTransfer(let run): return beginTransfer(run)
        case .transferCreated(let number, let transfer):
            return fill(for: number) { $0.transfer.fillIfEmpty(transfer) } ? .proceed : .abandonTransfer(transfer)
        case .idleTimerArmed(let number, let timer):
            return fill(for: number) { $0.idleTimer.fillIfEmpty(timer) } ? .proceed : .cancelTimer(timer)
        case .response(let number), .data(let number), .sent(let number), .idleTimerFired(let number):
            return isCurrent(number) ? .proceed : .ignore
        case .completed(let number): return complete(number)
        case .retryScheduled(let run, let time, let timer): return scheduleRetry(run, firesAt: time, timer: timer)
        case .backoffFired(let run): return resumeAttempts(run, from: .retry)
        case .stageWaitStarted(let run): return startStageWait(run)
        case .stageWaitEnded(let run): return resumeAttempts(run, from: .stage)
        case .interruptedForAnswer(let run): return interruptForAnswer(run)
        case .end(let run, let outcome, let commits): return end(run, outcome, commits: commits)
        case .commitEnded(let run, let failure): return commitEnded(run, failure: failure)
        case .delivered(let run):
            guard case .delivering(let ending) = state, ending.run == run else { return .ignore }
            state = .ended(ending)
            return .proceed
        }
    }
}

extension Optional {
    /// Stores `value` when empty; `false`, changing nothing, when a value is already there.
    fileprivate mutating func fillIfEmpty(_ value: Wrapped) -> Bool {
        guard case .none = self else { return false }
        self = value
        return true
    }
}
