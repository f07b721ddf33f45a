import Foundation

/// Waits for a semaphore from async code without blocking a thread of Swift's cooperative pool (which
/// ConnectionKit's refreshes and the other tests need): the blocking wait runs on a thread of its own (see
/// ``onOwnThread(_:)``).
enum ClientWait {
    /// Whether `semaphore` was signalled within `seconds`.
    static func signalled(_ semaphore: DispatchSemaphore, within seconds: TimeInterval) async -> Bool {
        await semaphore.signalled(within: seconds)
    }

    /// Whether `group` was left by everyone within `seconds`.
    static func left(_ group: DispatchGroup, within seconds: TimeInterval) async -> Bool {
        await group.left(within: seconds)
    }
}
