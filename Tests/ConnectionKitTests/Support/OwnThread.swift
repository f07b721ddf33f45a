import Foundation

/// Runs `body` on a thread of its own and returns its result: how a test function waits for something
/// only a blocking call can wait for (a semaphore, a condition, a child process) or runs seconds of CPU.
///
/// Test functions run on Swift's cooperative pool, which has one thread per core (two on CI). A blocking
/// wait or a long computation there holds a pool thread for its whole length; a few of them at the start
/// of the parallel run stalled every other test for about 40 s, and async tests' own `within` deadlines
/// ran out. Not a Dispatch worker either: libdispatch on Linux does not replace a worker that blocks.
///
/// `body` must not record issues (an issue recorded on another thread belongs to no test): it returns
/// what the caller checks.
func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread.detachNewThread { continuation.resume(returning: body()) }
    }
}

/// ``onOwnThread(_:)`` for a body that throws.
func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread { continuation.resume(with: Result { try body() }) }
    }
}

extension DispatchSemaphore {
    /// Whether the semaphore was signalled within `seconds`, waited for on a thread of its own (see
    /// ``onOwnThread(_:)``).
    func signalled(within seconds: TimeInterval) async -> Bool {
        await onOwnThread { self.wait(timeout: .now() + seconds) == .success }
    }
}

extension DispatchGroup {
    /// Whether everyone left the group within `seconds`, waited for on a thread of its own (see
    /// ``onOwnThread(_:)``).
    func left(within seconds: TimeInterval) async -> Bool {
        await onOwnThread { self.wait(timeout: .now() + seconds) == .success }
    }
}
