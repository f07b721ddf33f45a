import Foundation

/// Resumes a continuation exactly once, whichever of several callbacks (or a timeout) comes first.
final class Once<Value: Sendable>: Sendable {
    private let continuation: Mutex<CheckedContinuation<Value, Never>?>

    init(_ continuation: CheckedContinuation<Value, Never>) {
        self.continuation = Mutex(continuation)
    }

    func resume(_ value: Value) {
        let waiting = continuation.update { stored in
            defer { stored = nil }
            return stored
        }
        waiting?.resume(returning: value)
    }

    /// Waits for the first of `register`'s callbacks, or `timeout` seconds, whichever comes first.
    static func wait(
        timeout: TimeInterval, orElse fallback: Value, _ register: @Sendable (Once<Value>) -> Void
    ) async -> Value {
        await withCheckedContinuation { continuation in
            let once = Once(continuation)
            DispatchQueue.global().asyncAfter(deadline: .now() + timeout) { once.resume(fallback) }
            register(once)
        }
    }
}
