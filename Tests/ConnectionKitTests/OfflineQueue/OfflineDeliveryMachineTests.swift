import Testing

@testable import ConnectionKit

/// A timer for the delivery machine: an object with a name, nothing else.
final class NamedTimer: CustomStringConvertible, Sendable {
    let description: String

    init(_ name: String) {
        description = name
    }
}

/// Steps the offline queue's delivery machine with plain values: no socket, no file, no clock.
@Suite(.offThePool, .timeLimit(.minutes(1)))
struct OfflineDeliveryMachineTests {
    typealias Machine = OfflineDeliveryMachine<NamedTimer>

    /// The timer of the sample states that wait (`A`), one an event brings (`B`), and a stale one (`C`).
    static let a = NamedTimer("A")
    static let b = NamedTimer("B")
    static let c = NamedTimer("C")

    static var states: [(String, Machine.State)] {
        [
            ("idle", .idle(wakeUp: false)),
            ("idle+wake", .idle(wakeUp: true)),
            ("attempting(1)", .attempting(inFlight: 1, wakeUp: false)),
            ("attempting(1)+wake", .attempting(inFlight: 1, wakeUp: true)),
            ("attempting(2)", .attempting(inFlight: 2, wakeUp: false)),
            ("waiting(A,0)", .waiting(timer: a, inFlight: 0)),
            ("waiting(A,1)", .waiting(timer: a, inFlight: 1)),
            ("suspended(0)", .suspended(inFlight: 0)),
            ("suspended(1)", .suspended(inFlight: 1)),
            ("closed", .closed),
        ]
    }

    static var events: [(String, Machine.Event)] {
        [
            ("attemptStarting", .attemptStarting),
            ("attemptEnded", .attemptEnded),
            ("attemptFailed(B)", .attemptFailed(retryAfter: b)),
            ("wait(B)", .wait(b)),
            ("timerFired(A)", .timerFired(a)),
            ("timerFired(C)", .timerFired(c)),
            ("attemptNow", .attemptNow),
            ("suspend", .suspend),
            ("resume", .resume),
            ("close", .close),
        ]
    }

    /// Every state × event: the state after and the actions (`-` for none), in the order of `events`.
    static let table: [String: [String]] = [
        "idle": [
            "attempting(1) start", "idle attempt", "waiting(B,0) arm(B)", "waiting(B,0) arm(B)", "idle -",
            "idle -", "idle+wake attempt", "suspended(0) -", "idle+wake attempt", "closed -",
        ],
        "idle+wake": [
            "attempting(1) start", "idle+wake attempt", "idle cancel(B)+attempt", "idle cancel(B)+attempt",
            "idle+wake -", "idle+wake -", "idle+wake attempt", "suspended(0) -", "idle+wake attempt", "closed -",
        ],
        "attempting(1)": [
            "attempting(2) start", "idle attempt", "waiting(B,0) arm(B)", "attempting(1) cancel(B)", "attempting(1) -",
            "attempting(1) -", "attempting(1)+wake attempt", "suspended(1) -", "attempting(1)+wake attempt", "closed -",
        ],
        "attempting(1)+wake": [
            "attempting(2) start", "idle+wake attempt", "idle cancel(B)+attempt", "attempting(1)+wake cancel(B)",
            "attempting(1)+wake -", "attempting(1)+wake -", "attempting(1)+wake attempt", "suspended(1) -",
            "attempting(1)+wake attempt", "closed -",
        ],
        "attempting(2)": [
            "attempting(3) start", "attempting(1) attempt", "waiting(B,1) arm(B)", "attempting(2) cancel(B)",
            "attempting(2) -", "attempting(2) -", "attempting(2)+wake attempt", "suspended(2) -",
            "attempting(2)+wake attempt", "closed -",
        ],
        "waiting(A,0)": [
            "waiting(A,0) -", "waiting(A,0) -", "waiting(B,0) cancel(A)+arm(B)", "waiting(A,0) cancel(B)",
            "idle attempt", "waiting(A,0) -", "idle+wake cancel(A)+attempt", "suspended(0) cancel(A)",
            "idle+wake cancel(A)+attempt", "closed cancel(A)",
        ],
        "waiting(A,1)": [
            "waiting(A,1) -", "waiting(A,0) -", "waiting(B,0) cancel(A)+arm(B)", "waiting(A,1) cancel(B)",
            "attempting(1) attempt", "waiting(A,1) -", "attempting(1)+wake cancel(A)+attempt",
            "suspended(1) cancel(A)", "attempting(1)+wake cancel(A)+attempt", "closed cancel(A)",
        ],
        "suspended(0)": [
            "suspended(0) -", "suspended(0) -", "suspended(0) cancel(B)", "suspended(0) cancel(B)", "suspended(0) -",
            "suspended(0) -", "suspended(0) -", "suspended(0) -", "idle+wake attempt", "closed -",
        ],
        "suspended(1)": [
            "suspended(1) -", "suspended(0) -", "suspended(0) cancel(B)", "suspended(1) cancel(B)", "suspended(1) -",
            "suspended(1) -", "suspended(1) -", "suspended(1) -", "attempting(1)+wake attempt", "closed -",
        ],
        "closed": [
            "closed -", "closed -", "closed cancel(B)", "closed cancel(B)", "closed -", "closed -", "closed -",
            "closed -", "closed -", "closed -",
        ],
    ]

    static func render(_ state: Machine.State) -> String {
        switch state {
        case .idle(let wakeUp): return "idle" + (wakeUp ? "+wake" : "")
        case .attempting(let count, let wakeUp): return "attempting(\(count))" + (wakeUp ? "+wake" : "")
        case .waiting(let timer, let count): return "waiting(\(timer),\(count))"
        case .suspended(let count): return "suspended(\(count))"
        case .closed: return "closed"
        }
    }

    static func render(_ actions: Machine.Actions) -> String {
        let parts = [
            actions.start ? "start" : nil, actions.cancel.map { "cancel(\($0))" }, actions.arm.map { "arm(\($0))" },
            actions.attempt ? "attempt" : nil,
        ]
        let named = parts.compactMap { $0 }
        return named.isEmpty ? "-" : named.joined(separator: "+")
    }

    @Test("every event in every state gives the state and actions of the table", arguments: 0..<10, 0..<10)
    func transition(stateIndex: Int, eventIndex: Int) throws {
        let (stateName, state) = Self.states[stateIndex]
        let (eventName, event) = Self.events[eventIndex]
        var machine = Machine()
        machine.state = state
        let actions = machine.handle(event)
        let expected = try #require(Self.table[stateName]?[eventIndex])
        #expect(Self.render(machine.state) + " " + Self.render(actions) == expected, "\(eventName) in \(stateName)")
    }

    @Test("the table covers every state and event")
    func tableIsComplete() {
        #expect(Set(Self.table.keys) == Set(Self.states.map(\.0)))
        #expect(Self.table.values.allSatisfy { $0.count == Self.events.count })
    }

    @Test("a timer that was replaced or cut short never starts an attempt when it fires late")
    func staleTimersAreNoOps() {
        var machine = Machine()
        let first = NamedTimer("first")
        let second = NamedTimer("second")
        _ = machine.handle(.attemptStarting)
        #expect(machine.handle(.attemptFailed(retryAfter: first)) == Machine.Actions(arm: first))
        // A second failure replaces the wait; the first timer's late firing is stale.
        #expect(machine.handle(.attemptFailed(retryAfter: second)) == Machine.Actions(cancel: first, arm: second))
        #expect(machine.handle(.timerFired(first)) == .none)
        #expect(!machine.mayAttempt)
        // `setReachable(true)` cuts the wait short; the cut timer's firing is stale too.
        #expect(machine.handle(.attemptNow) == Machine.Actions(cancel: second, attempt: true))
        #expect(machine.handle(.timerFired(second)) == .none)
        #expect(machine.mayAttempt)
    }

    @Test("race: an attempt asked to start after close() is refused (the write is not sent from a closed queue)")
    func attemptAfterCloseIsRefused() {
        var machine = Machine()
        // The worker looked at the window while the queue was open...
        #expect(machine.mayAttempt)
        // ...then `close()` ran before the request was started.
        _ = machine.handle(.close)
        #expect(machine.handle(.attemptStarting) == .none)
        #expect(machine.inFlight == 0)
    }

    @Test("race: setReachable(true) between a failed attempt and its wait is not lost (no wait is armed)")
    func wakeUpDuringFailureIsKept() {
        var machine = Machine()
        let wait = NamedTimer("10 s")
        #expect(machine.handle(.attemptStarting).start)
        // The attempt is failing on the worker; the app reports the network back before the wait is decided.
        #expect(machine.handle(.attemptNow).attempt)
        let actions = machine.handle(.attemptFailed(retryAfter: wait))
        #expect(actions == Machine.Actions(cancel: wait, attempt: true))
        #expect(machine.mayAttempt)
        // A class registered while the head's missing class was being reported: the same.
        #expect(machine.handle(.attemptNow).attempt)
        #expect(machine.handle(.wait(wait)) == Machine.Actions(cancel: wait, attempt: true))
    }
}
