import ConnectionKitTesting
import Foundation

/// Holds the callers of ``pass()`` (a route's handler, on the server's connection thread) until the test
/// calls ``open()``, or `timeout` passes: requests then stay live for as long as the test looks at them.
final class OpenableGate: @unchecked Sendable {
    // Safe: `isOpen` is only touched while `condition` is locked.
    private let condition = NSCondition()
    private var isOpen = false
    private let timeout: TimeInterval

    init(timeout: TimeInterval = 30) {
        self.timeout = timeout
    }

    /// Waits until the gate is open (or the timeout passed).
    func pass() {
        condition.lock()
        defer { condition.unlock() }
        let deadline = Date().addingTimeInterval(timeout)
        while !isOpen, condition.wait(until: deadline) {}
    }

    /// Lets every caller through, now and later.
    func open() {
        condition.lock()
        defer { condition.unlock() }
        isOpen = true
        condition.broadcast()
    }
}

extension TestServer {
    /// Routes `path` to an answer (`late`) that waits for `gate`: the request stays live, sent and unanswered,
    /// until the test opens it.
    func routeHeld(_ path: String, until gate: OpenableGate) {
        route(path) { _ in
            gate.pass()
            return .text("late")
        }
    }
}
