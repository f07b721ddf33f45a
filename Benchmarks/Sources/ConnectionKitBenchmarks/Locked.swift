import Foundation

/// A value behind a lock, shared by the benchmark drivers and the completion handlers they count.
final class Locked<Value>: @unchecked Sendable {
    // Safe: `value` is only touched inside `withLock`, under `lock`.
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
