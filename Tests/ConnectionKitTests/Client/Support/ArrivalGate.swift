import Foundation

/// Holds each caller until `count` callers have arrived (or `timeout` passes), so that a route answers
/// only once every concurrent request is on the wire: "concurrent" then holds however slowly the
/// machine starts them.
final class ArrivalGate: @unchecked Sendable {
    // Safe: `arrived` is only touched while `condition` is locked.
    private let condition = NSCondition()
    private var arrived = 0
    private let count: Int
    private let timeout: TimeInterval

    init(count: Int, timeout: TimeInterval = 30) {
        self.count = count
        self.timeout = timeout
    }

    /// Counts the caller in and waits (on the server's connection thread) for the others.
    func arriveAndWait() {
        condition.lock()
        defer { condition.unlock() }
        arrived += 1
        if arrived >= count {
            condition.broadcast()
            return
        }
        let deadline = Date().addingTimeInterval(timeout)
        while arrived < count, condition.wait(until: deadline) {}
    }
}
