#if canImport(FoundationNetworking)
    import Foundation
    import Testing

    @testable import ConnectionKit

    /// The delegate queue of the session for saved bodies holds URLSession's work thread back while it is full.
    @Suite("Bounded delegate queue", .offThePool, .timeLimit(.minutes(2)))
    struct BoundedDelegateQueueTests {
        /// Counts what was queued and what ran.
        final class Tally: @unchecked Sendable {
            // Safe: `counts` is only touched under `condition`.
            private let condition = NSCondition()
            private var counts = (added: 0, ran: 0)

            func add(added: Int = 0, ran: Int = 0) {
                condition.lock()
                defer { condition.unlock() }
                counts.added += added
                counts.ran += ran
                condition.broadcast()
            }

            var values: (added: Int, ran: Int) {
                condition.lock()
                defer { condition.unlock() }
                return counts
            }

            /// Waits until `done` holds for the counts, at most `timeout` seconds; whether it did.
            /// The blocking wait runs on a thread of its own (see `onOwnThread`).
            func wait(
                timeout: TimeInterval, until done: @escaping @Sendable ((added: Int, ran: Int)) -> Bool
            ) async -> Bool {
                await onOwnThread { [self] in
                    let deadline = Date(timeIntervalSinceNow: timeout)
                    condition.lock()
                    defer { condition.unlock() }
                    while !done(counts) {
                        guard condition.wait(until: deadline) else { return done(counts) }
                    }
                    return true
                }
            }
        }

        /// Adds `count` operations to `queue` from a thread of its own (the role of URLSession's work thread),
        /// counting each addition and each run in `tally`.
        static func produce(_ count: Int, into queue: BoundedDelegateQueue, counting tally: Tally) {
            Thread.detachNewThread {
                for _ in 0..<count {
                    queue.addOperation { tally.add(ran: 1) }
                    tally.add(added: 1)
                }
            }
        }

        @Test("a producer waits while the queue holds its limit, and goes on once it drained to resumeAt")
        func producerWaitsWhileFull() async {
            let queue = BoundedDelegateQueue(limit: 4, resumeAt: 2, longestWait: 60)
            queue.isSuspended = true
            let tally = Tally()
            Self.produce(10, into: queue, counting: tally)
            #expect(await tally.wait(timeout: 30) { $0.added == 4 })
            // Nothing runs while suspended, so the producer must still be held at the limit after a settle window.
            #expect(
                await !tally.wait(timeout: 0.5) { $0.added > 4 }, "the producer went past the limit: \(tally.values)")
            queue.isSuspended = false
            #expect(await tally.wait(timeout: 30) { $0 == (added: 10, ran: 10) }, "\(tally.values)")
        }

        @Test("an operation queued from the queue itself never waits, full or not")
        func selfQueuedOperationsDoNotWait() async {
            let queue = BoundedDelegateQueue(limit: 2, resumeAt: 1, longestWait: 60)
            let tally = Tally()
            queue.addOperation {
                for _ in 0..<10 { queue.addOperation { tally.add(ran: 1) } }
                tally.add(added: 10)
            }
            #expect(await tally.wait(timeout: 30) { $0 == (added: 10, ran: 10) }, "\(tally.values)")
        }

        @Test("no wait lasts longer than longestWait, even when the queue never drains")
        func waitIsBounded() async {
            let queue = BoundedDelegateQueue(limit: 1, resumeAt: 0, longestWait: 0.05)
            queue.isSuspended = true
            let tally = Tally()
            Self.produce(3, into: queue, counting: tally)
            #expect(await tally.wait(timeout: 30) { $0.added == 3 }, "\(tally.values)")
            queue.isSuspended = false
            #expect(await tally.wait(timeout: 30) { $0.ran == 3 }, "\(tally.values)")
        }
    }
#endif
