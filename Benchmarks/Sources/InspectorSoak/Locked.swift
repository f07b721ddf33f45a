import Foundation

/// A value guarded by one `NSLock`; the only way in is `withLock`.
final class Locked<Value>: @unchecked Sendable {
    // Safe: `value` is only touched inside `withLock`, which holds the lock.
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
