import Foundation

/// A value guarded by one `NSLock`; the only way in is `withLock`, so every read and write is serialized.
package final class Locked<Value> {
    // MARK: - Storage

    private let lock = NSLock()
    private var value: Value

    // MARK: - Init

    package init(_ value: Value) {
        self.value = value
    }

    // MARK: - Access

    /// Runs `body` with exclusive access to the value. Never call user code from inside `body`.
    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}

// Safe: the value is only ever touched inside `withLock`, which holds the NSLock.
extension Locked: @unchecked Sendable where Value: Sendable {}
