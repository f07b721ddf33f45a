import Dispatch
import Testing

@testable import ConnectionKit

/// Steps the request's state machine with plain values: no socket, no dispatch source, no clock.
@Suite(.offThePool, .timeLimit(.minutes(1)))
struct RequestStateMachineTests {
    typealias Machine = RequestStateMachine<FakeTransfer, FakeTimer>

    // MARK: - Every (state, event) pair

    @Test(
        "every event in every state moves to the state the lifecycle allows, or changes nothing",
        arguments: StateSample.allCases, EventSample.allCases)
    func transition(from sample: StateSample, on eventSample: EventSample) {
        var machine = sample.machine()
        let before = Summary(machine)
        let event = eventSample.event(for: before)
        let action = machine.handle(event)
        let after = Summary(machine)
        if let expected = Self.allowed[sample]?[eventSample] {
            #expect(after.kind == expected.state, "\(eventSample) in \(sample)")
            #expect(ActionKind(action) == expected.action, "\(eventSample) in \(sample)")
        } else {
            #expect(after == before, "\(eventSample) in \(sample) must change nothing")
            #expect(Self.isNoOp(action, for: event), "\(eventSample) in \(sample) must do nothing: \(action)")
        }
    }

    @Test(
        "an event for an earlier run or another transfer changes nothing in any state",
        arguments: StateSample.allCases, EventSample.numbered)
    func staleEvent(in sample: StateSample, eventSample: EventSample) {
        var machine = sample.machine()
        let before = Summary(machine)
        let stale = Summary(
            kind: before.kind, run: Self.earlierRun,
            transfer: TransferNumber(run: before.run ?? Self.earlierRun, index: 99),
            attempt: 0, state: .idle)
        let event = eventSample.event(for: stale)
        let action = machine.handle(event)
        #expect(Summary(machine) == before, "\(eventSample) of an old run in \(sample)")
        #expect(Self.isNoOp(action, for: event), "\(eventSample) of an old run in \(sample): \(action)")
    }

    // MARK: - Transitions in detail

    @Test("a run counts its attempts and transfers, and names them")
    func attemptsAndTransfers() {
        var machine = Machine()
        guard case .startRun(let run) = machine.handle(.start) else {
            Issue.record("start did not start a run")
            return
        }
        #expect(machine.attempt == 0, "no attempt before the first one begins")
        #expect(ActionKind(machine.handle(.beginTransfer(run))) == .ignore)
        #expect(ActionKind(machine.handle(.firstAttempt(run))) == .beginAttempt)
        #expect(machine.attempt == 1)
        guard case .startTransfer(let first) = machine.handle(.beginTransfer(run)) else {
            Issue.record("no first transfer")
            return
        }
        #expect(first == TransferNumber(run: run, index: 1))
        _ = machine.handle(.transferCreated(first, FakeTransfer(id: 1)))
        _ = machine.handle(.idleTimerArmed(first, FakeTimer(id: 1)))
        guard case .transferEnded(let attempt, let transfer, let idle) = machine.handle(.completed(first)) else {
            Issue.record("the transfer could not be claimed")
            return
        }
        #expect(attempt == 1 && transfer == FakeTransfer(id: 1) && idle == FakeTimer(id: 1))
        #expect(ActionKind(machine.handle(.completed(first))) == .ignore, "a transfer is claimed once")
        guard case .startTransfer(let hop) = machine.handle(.beginTransfer(run)) else {
            Issue.record("no redirect hop")
            return
        }
        #expect(hop == TransferNumber(run: run, index: 2))
        _ = machine.handle(.completed(hop))
        _ = machine.handle(.retryScheduled(run, firesAt: .now(), timer: FakeTimer(id: 2)))
        guard case .beginAttempt(run, attempt: 2) = machine.handle(.backoffFired(run)) else {
            Issue.record("the backoff did not begin attempt 2")
            return
        }
        #expect(machine.attempt == 2)
    }

    @Test("the ending releases the transfer, the idle timer, the backoff and the deadline of the run")
    func endingReleasesEverything() {
        var machine = Self.running()
        let run = Self.firstRun
        _ = machine.handle(.deadlineArmed(run, at: .now() + 60, timer: FakeTimer(id: 9)))
        _ = machine.handle(.beginTransfer(run))
        let transfer = TransferNumber(run: run, index: 1)
        _ = machine.handle(.transferCreated(transfer, FakeTransfer(id: 3)))
        _ = machine.handle(.idleTimerArmed(transfer, FakeTimer(id: 4)))
        guard case .endRun(let closing) = machine.handle(.cancel) else {
            Issue.record("cancel did not end the run")
            return
        }
        #expect(closing.transfer == FakeTransfer(id: 3))
        #expect(Set(closing.timers.map(\.id)) == [4, 9])
        #expect(!closing.commits)
        #expect(machine.connectionState == .cancelled)
        #expect(ActionKind(machine.handle(.cancel)) == .ignore, "a run ends once")
    }

    @Test("a saved file's commit is invisible until it ended: running, then failed, never finished first")
    func commitHidesTheEnding() {
        var machine = Machine()
        _ = machine.handle(.start)
        let run = Self.firstRun
        _ = machine.handle(.end(run, .success(Data0()), commits: true))
        #expect(machine.connectionState == .running)
        #expect(ActionKind(machine.handle(.cancel)) == .ignore, "a cancel during the commit changes nothing")
        #expect(ActionKind(machine.handle(.end(run, .cancelled, commits: false))) == .ignore)
        guard case .deliver(.failure) = machine.handle(.commitEnded(run, failure: ConnectionError(.timedOut))) else {
            Issue.record("a failed commit must deliver the failure")
            return
        }
        #expect(machine.connectionState == .failed)
    }

    @Test("a retry whose wait would pass the deadline is refused, and the timer handed back")
    func retryPastTheDeadline() {
        var machine = Self.running()
        let run = Self.firstRun
        let deadline = DispatchTime(uptimeNanoseconds: 5_000_000_000)
        _ = machine.handle(.deadlineArmed(run, at: deadline, timer: FakeTimer(id: 1)))
        let late = DispatchTime(uptimeNanoseconds: 6_000_000_000)
        guard
            case .cancelTimer(let timer) = machine.handle(.retryScheduled(run, firesAt: late, timer: FakeTimer(id: 2)))
        else {
            Issue.record("a retry past the deadline was scheduled")
            return
        }
        #expect(timer == FakeTimer(id: 2))
        #expect(Summary(machine).kind == .preparing)
        let early = DispatchTime(uptimeNanoseconds: 4_000_000_000)
        #expect(
            ActionKind(machine.handle(.retryScheduled(run, firesAt: early, timer: FakeTimer(id: 3)))) == .scheduleRetry)
    }

    @Test("a run waits for a stage (an authorization refresh) once")
    func refreshOnce() {
        var machine = Self.running()
        let run = Self.firstRun
        #expect(ActionKind(machine.handle(.stageWaitStarted(run))) == .waitForStage)
        #expect(ActionKind(machine.handle(.stageWaitEnded(run))) == .beginAttempt)
        #expect(ActionKind(machine.handle(.stageWaitStarted(run))) == .ignore)
        #expect(Summary(machine).kind == .preparing)
    }

    @Test("a transfer or timer that arrives after its run ended is handed back to be released")
    func lateResources() {
        var machine = Self.running()
        let run = Self.firstRun
        _ = machine.handle(.beginTransfer(run))
        _ = machine.handle(.cancel)
        let transfer = TransferNumber(run: run, index: 1)
        guard case .abandonTransfer(let late) = machine.handle(.transferCreated(transfer, FakeTransfer(id: 7))) else {
            Issue.record("a late transfer was kept")
            return
        }
        #expect(late == FakeTransfer(id: 7))
        guard case .cancelTimer(let timer) = machine.handle(.idleTimerArmed(transfer, FakeTimer(id: 8))) else {
            Issue.record("a late timer was kept")
            return
        }
        #expect(timer == FakeTimer(id: 8))
    }

    @Test("an ended request starts a new run; a running one is joined")
    func startAndJoin() {
        var machine = Machine()
        _ = machine.handle(.start)
        #expect(ActionKind(machine.handle(.start)) == .joinRun)
        _ = machine.handle(.cancel)
        guard case .startRun(let second) = machine.handle(.start) else {
            Issue.record("an ended request did not start again")
            return
        }
        #expect(second == Self.firstRun.next)
        #expect(machine.attempt == 0)
    }

    /// A machine in the first attempt of its first run.
    static func running() -> Machine {
        var machine = Machine()
        _ = machine.handle(.start)
        _ = machine.handle(.firstAttempt(firstRun))
        return machine
    }

    // MARK: - The table

    static let firstRun = RunNumber.beforeFirst.next
    /// A run before the samples' current one (the samples run their second run).
    static let earlierRun = RunNumber.beforeFirst.next

    typealias Expectation = (state: StateKind, action: ActionKind)

    /// The transitions the lifecycle allows; every other pair must be a no-op.
    static let allowed: [StateSample: [EventSample: Expectation]] = {
        var table: [StateSample: [EventSample: Expectation]] = [:]
        let running: [StateSample] = [.starting, .preparing, .transferring, .waitingForRetry, .waitingForStage]
        for sample in running {
            table[sample, default: [:]][.start] = (sample.kind, .joinRun)
            table[sample, default: [:]][.cancel] = (.delivering, .endRun)
            table[sample, default: [:]][.deadlineArmed] = (sample.kind, .proceed)
            table[sample, default: [:]][.end] = (.delivering, .endRun)
            table[sample, default: [:]][.endWithCommit] = (.committing, .endRun)
        }
        for sample in [StateSample.idle, .delivering, .ended] {
            table[sample, default: [:]][.start] = (.preparing, .startRun)
        }
        table[.committing, default: [:]][.start] = (.committing, .joinRun)
        table[.committing, default: [:]][.commitEnded] = (.delivering, .deliver)
        table[.delivering, default: [:]][.delivered] = (.ended, .proceed)
        table[.starting, default: [:]][.firstAttempt] = (.preparing, .beginAttempt)
        table[.preparing, default: [:]][.beginTransfer] = (.transferring, .startTransfer)
        table[.preparing, default: [:]][.retryScheduled] = (.waitingForRetry, .scheduleRetry)
        table[.preparing, default: [:]][.stageWaitStarted] = (.waitingForStage, .waitForStage)
        for event in [EventSample.transferCreated, .idleTimerArmed, .response, .data, .sent, .idleTimerFired] {
            table[.transferring, default: [:]][event] = (.transferring, .proceed)
        }
        table[.transferring, default: [:]][.completed] = (.preparing, .transferEnded)
        table[.waitingForRetry, default: [:]][.backoffFired] = (.preparing, .beginAttempt)
        table[.waitingForStage, default: [:]][.stageWaitEnded] = (.preparing, .beginAttempt)
        // The cache answers in place of the network: what the run waits for stops (not a refresh, and not
        // before the first attempt).
        table[.transferring, default: [:]][.interruptedForAnswer] = (.preparing, .transferEnded)
        table[.waitingForRetry, default: [:]][.interruptedForAnswer] = (.preparing, .cancelTimer)
        table[.preparing, default: [:]][.interruptedForAnswer] = (.preparing, .proceed)
        return table
    }()

    /// Nothing to do, or only the release of the resource the event brought.
    static func isNoOp(_ action: Machine.Action, for event: Machine.Event) -> Bool {
        switch (action, event) {
        case (.ignore, _): return true
        case (.cancelTimer(let timer), .deadlineArmed(_, _, let brought)),
            (.cancelTimer(let timer), .idleTimerArmed(_, let brought)),
            (.cancelTimer(let timer), .retryScheduled(_, _, let brought)):
            return timer == brought
        case (.abandonTransfer(let transfer), .transferCreated(_, let brought)): return transfer == brought
        default: return false
        }
    }
}

/// A stand-in for a transfer handle.
struct FakeTransfer: Equatable {
    let id: Int
}

/// A stand-in for a timer.
struct FakeTimer: Equatable {
    let id: Int
}

/// A successful output.
struct Data0: Sendable {}
