import Foundation

/// Waits for a semaphore from async code without blocking a thread of Swift's cooperative pool (which
/// ConnectionKit's refreshes and the other tests need): the blocking wait runs on a Dispatch thread.
enum ClientWait {
    /// Whether `semaphore` was signalled within `seconds`.
    static func signalled(_ semaphore: DispatchSemaphore, within seconds: TimeInterval) async -> Bool {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(returning: semaphore.wait(timeout: .now() + seconds) == .success)
            }
        }
    }

    /// Whether `group` was left by everyone within `seconds`.
    static func left(_ group: DispatchGroup, within seconds: TimeInterval) async -> Bool {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(returning: group.wait(timeout: .now() + seconds) == .success)
            }
        }
    }
}
