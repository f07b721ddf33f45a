import Foundation

/// What a `value()` caller waits on: its run's result and, when the run's client delivers immediately
/// (``ConnectionClient/Delivery/immediate``), the run's processing work (each transfer's completion, a
/// cached answer), which the caller's task then runs itself instead of a processing-queue thread. So the
/// loop thread wakes the awaiting task once, and the ending runs where the caller continues: one thread
/// crossing per request on the way back, as an event loop's own client has, instead of three (loop →
/// processing queue → `callbackQueue` → the task).
///
/// Work posted after the caller took its result goes to the processing queue instead: nothing posted is
/// lost (a late completion still discards its body).
final class RunInbox: @unchecked Sendable {
    // Safe: every stored property is touched only while `lock` is held.
    private enum Item {
        case work(@Sendable () -> Void)
        case result(Result<any Sendable, any Error>)
    }

    private let lock = NSLock()
    private var items: [Item] = []
    private var waiting: CheckedContinuation<Void, Never>?
    private var closed = false

    /// Hands `work` to the awaiting caller. `false` once the caller has its result: run it elsewhere.
    func post(_ work: @escaping @Sendable () -> Void) -> Bool {
        push(.work(work))
    }

    /// The run's result, for the awaiting caller (the waiter of its run).
    func deliver(_ result: Result<any Sendable, any Error>) {
        _ = push(.result(result))
    }

    /// Runs the posted work as it comes, then returns the result. Work posted afterwards, or left behind
    /// the result, goes to `leftover`.
    func result(leftover: (@escaping @Sendable () -> Void) -> Void) async -> Result<any Sendable, any Error> {
        while true {
            if let result = take(await next(), leftover: leftover) { return result }
        }
    }

    /// Runs the work already posted, without waiting: the result when that work produced it (a run answered
    /// from the cache, or ended before any transfer), else `nil`, and ``result(leftover:)`` waits for the rest.
    func resultIfReady(leftover: (@escaping @Sendable () -> Void) -> Void) -> Result<any Sendable, any Error>? {
        while let item = lock.withLock({ items.isEmpty ? nil : items.removeFirst() }) {
            if let result = take(item, leftover: leftover) { return result }
        }
        return nil
    }

    /// Runs `item`'s work, or takes its result and closes the inbox.
    private func take(
        _ item: Item, leftover: (@escaping @Sendable () -> Void) -> Void
    ) -> Result<any Sendable, any Error>? {
        switch item {
        case .work(let work):
            ConnectionQueues.runAsProcessing(work)
            return nil
        case .result(let result):
            let left = lock.withLock {
                closed = true
                defer { items = [] }
                return items
            }
            for case .work(let work) in left { leftover(work) }
            return result
        }
    }

    private func push(_ item: Item) -> Bool {
        let (accepted, waiter) = lock.withLock { () -> (Bool, CheckedContinuation<Void, Never>?) in
            guard !closed else { return (false, nil) }
            items.append(item)
            defer { waiting = nil }
            return (true, waiting)
        }
        waiter?.resume()
        return accepted
    }

    /// The next item: at once when one is there, without suspending.
    private func next() async -> Item {
        while true {
            if let item = lock.withLock({ items.isEmpty ? nil : items.removeFirst() }) { return item }
            await withCheckedContinuation { continuation in
                let ready = lock.withLock { () -> Bool in
                    guard items.isEmpty else { return true }
                    waiting = continuation
                    return false
                }
                if ready { continuation.resume() }
            }
        }
    }
}
