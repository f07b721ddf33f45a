import Foundation

/// A thread-safe counter for handlers in the client tests.
final class ClientCounter: @unchecked Sendable {
    // Safe: `count` is only touched under `lock`.
    private var count = 0
    private let lock = NSLock()

    func increment() {
        lock.lock()
        defer { lock.unlock() }
        count += 1
    }

    var value: Int {
        lock.lock()
        defer { lock.unlock() }
        return count
    }
}
