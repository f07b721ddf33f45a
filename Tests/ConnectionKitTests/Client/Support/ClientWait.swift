import Foundation

/// Waits for a semaphore from async code without blocking a thread of Swift's cooperative pool (which
/// ConnectionKit's refreshes and the other tests need): the blocking wait runs on a thread of its own (not
/// a Dispatch worker: libdispatch on Linux does not replace a worker that blocks, so a few such waits
/// would starve the callback queues they wait for).
enum ClientWait {
    /// Whether `semaphore` was signalled within `seconds`.
    static func signalled(_ semaphore: DispatchSemaphore, within seconds: TimeInterval) async -> Bool {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(returning: semaphore.wait(timeout: .now() + seconds) == .success)
            }
        }
    }

    /// Whether `group` was left by everyone within `seconds`.
    static func left(_ group: DispatchGroup, within seconds: TimeInterval) async -> Bool {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(returning: group.wait(timeout: .now() + seconds) == .success)
            }
        }
    }
}
