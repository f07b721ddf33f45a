#if canImport(FoundationNetworking)
    import Foundation
    import Testing

    @testable import ConnectionKit

    /// The delegate queue of the session for bodies kept in memory runs URLSession's calls in order, one at a time.
    @Suite("Serial delegate queue", .offThePool, .timeLimit(.minutes(2)))
    struct SerialDelegateQueueTests {
        /// What the calls saw: the order they ran in, and whether one started while another was running.
        final class Runs: @unchecked Sendable {
            // Safe: every stored property but `count` is only touched under `lock`.
            private let lock = NSLock()
            private var order: [Int] = []
            private var running = 0
            private var overlaps = 0
            private var allRan: (@Sendable () -> Void)?
            /// How many calls the test hands over.
            let count: Int

            init(count: Int) {
                self.count = count
            }

            func enter() {
                lock.withLock {
                    if running > 0 { overlaps += 1 }
                    running += 1
                }
            }

            func leave(_ index: Int) {
                let signal = lock.withLock {
                    running -= 1
                    order.append(index)
                    return order.count == count ? allRan : nil
                }
                signal?()
            }

            /// Returns once all `count` calls ran, or after `timeout` seconds, with the order and the overlaps.
            /// Awaits rather than blocks: a blocked test thread would leave libdispatch fewer threads to
            /// overlap calls with, and the test could not see the overlap it is about.
            func finished(timeout: TimeInterval) async -> (order: [Int], overlaps: Int) {
                _ = await waitForSignal(timeout: timeout) { signal in
                    let ran = lock.withLock {
                        allRan = signal
                        return order.count >= count
                    }
                    if ran { signal() }
                }
                return lock.withLock { (order, overlaps) }
            }
        }

        @Test("calls handed over from another thread run in that order, never two at once")
        func callsRunInOrderOneAtATime() async {
            let queue = SerialDelegateQueue()
            let count = 5_000
            let runs = Runs(count: count)
            // The role of URLSession's work thread.
            Thread.detachNewThread {
                for index in 0..<count {
                    queue.addOperation {
                        runs.enter()
                        // Some work, so that two calls run on two cores would overlap.
                        var hasher = Hasher()
                        for value in 0..<2_000 { hasher.combine(value &+ index) }
                        _ = hasher.finalize()
                        runs.leave(index)
                    }
                }
            }
            let seen = await runs.finished(timeout: 60)
            #expect(seen.order.count == count)
            let outOfOrder = seen.order.indices.first { seen.order[$0] != $0 }
            let misplaced = outOfOrder.map { "position \($0) holds call \(seen.order[$0])" } ?? ""
            #expect(outOfOrder == nil, "calls ran out of order: \(misplaced)")
            #expect(seen.overlaps == 0, "\(seen.overlaps) calls started while another was running")
        }
    }
#endif
