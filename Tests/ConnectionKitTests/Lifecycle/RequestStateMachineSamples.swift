import Dispatch

@testable import ConnectionKit

typealias SampleMachine = RequestStateMachine<FakeTransfer, FakeTimer>

/// The name of an enum value's case, without its values.
func caseName(of value: Any) -> String {
    Mirror(reflecting: value).children.first?.label ?? String(describing: value)
}

/// The kinds of ``RequestStateMachine/State``, without their values.
enum StateKind: String, Equatable {
    case idle, preparing, transferring, waitingForRetry, waitingForStage, committing, delivering, ended
    /// A case this list does not know: never what a test expects.
    case unknown

    init(_ state: SampleMachine.State) {
        self = StateKind(rawValue: caseName(of: state)) ?? .unknown
    }
}

/// One machine in each state, reached by real events. All but `idle` are in their second run, so that
/// an earlier run exists to send stale events for.
enum StateSample: CaseIterable, Hashable, CustomStringConvertible {
    /// `starting` is `preparing` before the first attempt; `preparing` is between two transfers.
    case idle, starting, preparing, transferring, waitingForRetry, waitingForStage, committing, delivering, ended

    var kind: StateKind {
        switch self {
        case .idle: return .idle
        case .starting, .preparing: return .preparing
        case .transferring: return .transferring
        case .waitingForRetry: return .waitingForRetry
        case .waitingForStage: return .waitingForStage
        case .committing: return .committing
        case .delivering: return .delivering
        case .ended: return .ended
        }
    }

    var description: String { self == .starting ? "starting" : "\(kind)" }

    func machine() -> SampleMachine {
        var machine = SampleMachine()
        guard self != .idle else { return machine }
        _ = machine.handle(.start)
        _ = machine.handle(.cancel)
        _ = machine.handle(.delivered(RequestStateMachineTests.earlierRun))
        guard case .startRun(let run) = machine.handle(.start) else { return machine }
        let transfer = TransferNumber(run: run, index: 1)
        if self != .starting { _ = machine.handle(.firstAttempt(run)) }
        switch self {
        case .idle, .starting:
            break
        case .preparing:
            _ = machine.handle(.beginTransfer(run))
            _ = machine.handle(.completed(transfer))
        case .transferring:
            _ = machine.handle(.beginTransfer(run))
        case .waitingForRetry:
            _ = machine.handle(.beginTransfer(run))
            _ = machine.handle(.completed(transfer))
            _ = machine.handle(.retryScheduled(run, firesAt: .now(), timer: FakeTimer(id: 20)))
        case .waitingForStage:
            _ = machine.handle(.beginTransfer(run))
            _ = machine.handle(.completed(transfer))
            _ = machine.handle(.stageWaitStarted(run))
        case .committing:
            _ = machine.handle(.end(run, .success(Data0()), commits: true))
        case .delivering:
            _ = machine.handle(.end(run, .cancelled, commits: false))
        case .ended:
            _ = machine.handle(.end(run, .cancelled, commits: false))
            _ = machine.handle(.delivered(run))
        }
        return machine
    }
}

/// One event of each kind, numbered for the run and transfer of the state it is sent in.
enum EventSample: CaseIterable, Hashable, CustomStringConvertible {
    case start, cancel, firstAttempt, deadlineArmed, beginTransfer, transferCreated, idleTimerArmed, response, data,
        sent
    case idleTimerFired, completed, retryScheduled, backoffFired, stageWaitStarted, stageWaitEnded, end, endWithCommit
    case commitEnded, delivered, interruptedForAnswer

    /// The events that carry a run or transfer number.
    static let numbered = allCases.filter { $0 != .start && $0 != .cancel }

    var description: String {
        switch self {
        case .start: return "start"
        case .cancel: return "cancel"
        case .firstAttempt: return "firstAttempt"
        case .deadlineArmed: return "deadlineArmed"
        case .beginTransfer: return "beginTransfer"
        case .transferCreated: return "transferCreated"
        case .idleTimerArmed: return "idleTimerArmed"
        case .response: return "response"
        case .data: return "data"
        case .sent: return "sent"
        case .idleTimerFired: return "idleTimerFired"
        case .completed: return "completed"
        case .retryScheduled: return "retryScheduled"
        case .backoffFired: return "backoffFired"
        case .stageWaitStarted: return "stageWaitStarted"
        case .stageWaitEnded: return "stageWaitEnded"
        case .end: return "end"
        case .endWithCommit: return "endWithCommit"
        case .commitEnded: return "commitEnded"
        case .delivered: return "delivered"
        case .interruptedForAnswer: return "interruptedForAnswer"
        }
    }

    /// The event, for the run and transfer `summary` names (the first run, transfer 1 when it has none).
    func event(for summary: Summary) -> SampleMachine.Event {
        let run = summary.run ?? RequestStateMachineTests.firstRun
        let transfer = summary.transfer ?? TransferNumber(run: run, index: 1)
        switch self {
        case .start: return .start
        case .cancel: return .cancel
        case .firstAttempt: return .firstAttempt(run)
        case .deadlineArmed: return .deadlineArmed(run, at: .now() + 60, timer: FakeTimer(id: 1))
        case .beginTransfer: return .beginTransfer(run)
        case .transferCreated: return .transferCreated(transfer, FakeTransfer(id: 2))
        case .idleTimerArmed: return .idleTimerArmed(transfer, FakeTimer(id: 3))
        case .response: return .response(transfer)
        case .data: return .data(transfer)
        case .sent: return .sent(transfer)
        case .idleTimerFired: return .idleTimerFired(transfer)
        case .completed: return .completed(transfer)
        case .retryScheduled: return .retryScheduled(run, firesAt: .now(), timer: FakeTimer(id: 4))
        case .backoffFired: return .backoffFired(run)
        case .stageWaitStarted: return .stageWaitStarted(run)
        case .stageWaitEnded: return .stageWaitEnded(run)
        case .end: return .end(run, .failure(ConnectionError(.timedOut)), commits: false)
        case .endWithCommit: return .end(run, .success(Data0()), commits: true)
        case .commitEnded: return .commitEnded(run, failure: nil)
        case .delivered: return .delivered(run)
        case .interruptedForAnswer: return .interruptedForAnswer(run)
        }
    }
}

/// What a test compares of a machine: the state's kind and every value it holds.
struct Summary: Equatable {
    var kind: StateKind
    var run: RunNumber?
    var transfer: TransferNumber?
    var attempt: Int
    var state: ConnectionState
    var handle: FakeTransfer?
    var idleTimer: FakeTimer?
    var backoff: FakeTimer?
    var deadline: FakeTimer?
    var waitedForStage = false

    init(
        kind: StateKind, run: RunNumber?, transfer: TransferNumber?, attempt: Int, state: ConnectionState
    ) {
        (self.kind, self.run, self.transfer, self.attempt, self.state) = (kind, run, transfer, attempt, state)
    }

    init(_ machine: SampleMachine) {
        self.init(
            kind: StateKind(machine.state), run: machine.activeRun?.number, transfer: nil, attempt: machine.attempt,
            state: machine.connectionState)
        deadline = machine.activeRun?.deadline?.timer
        waitedForStage = machine.activeRun?.waitedForStage ?? false
        switch machine.state {
        case .transferring(_, let transferring):
            (transfer, handle, idleTimer) = (transferring.number, transferring.transfer, transferring.idleTimer)
        case .waitingForRetry(_, let timer):
            backoff = timer
        case .delivering(let ending), .ended(let ending):
            run = ending.run
        default:
            break
        }
    }
}

/// The kinds of ``RequestStateMachine/Action``, without their values.
enum ActionKind: String, Equatable {
    case ignore, proceed, startRun, joinRun, beginAttempt, startTransfer, abandonTransfer, cancelTimer
    case transferEnded, scheduleRetry, waitForStage, endRun, deliver
    /// A case this list does not know: never what a test expects.
    case unknown

    init(_ action: SampleMachine.Action) {
        self = ActionKind(rawValue: caseName(of: action)) ?? .unknown
    }
}
