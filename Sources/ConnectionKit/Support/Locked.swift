import Foundation

/// A value guarded by one lock: the only way to reach it is `withLock`, so no access can forget the lock.
///
/// ConnectionKit keeps every piece of shared mutable state in one of these, one per object
/// (the `State` struct pattern of swift-nio and async-http-client). `Mutex` from
/// `Synchronization` would do the same, but it needs macOS 15 / iOS 18.
final class Locked<Value>: @unchecked Sendable {
    // Safe: `value` is only read or written while `lock` is held.
    private var value: Value
    private let lock = NSLock()

    init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with exclusive access. Never call user code from `body`.
    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
