/// Which run of a request something belongs to: every `start()` makes a new one, and whatever
/// arrives for an earlier run (a late transfer event, a timer, a refresh) is ignored.
struct RunNumber: Hashable, Comparable, Sendable, CustomStringConvertible {
    private let value: UInt64

    /// The number before the first run: no event carries it.
    static let beforeFirst = RunNumber(value: 0)

    /// The run after this one.
    var next: RunNumber { RunNumber(value: value &+ 1) }

    var description: String { "run \(value)" }

    static func < (lhs: RunNumber, rhs: RunNumber) -> Bool { lhs.value < rhs.value }
}

/// One transfer of a run: an attempt, or one redirect hop of it. Events of a transfer that is no
/// longer the current one are ignored.
struct TransferNumber: Hashable, Sendable, CustomStringConvertible {
    let run: RunNumber
    /// The transfer's place among the transfers of its run, from 1.
    let index: Int

    var description: String { "\(run), transfer \(index)" }
}
