#if canImport(FoundationNetworking)
    import Foundation
    import FoundationNetworking

    /// The delegate queue of the session for bodies saved to a file: URLSession's work thread, which hands
    /// every piece of a body to this queue as one operation, waits while the queue holds ``limit`` operations
    /// that have not run yet, until it is back to ``resumeAt``.
    ///
    /// FoundationNetworking has no back-pressure of its own: libcurl's thread reads the socket as fast as
    /// loopback delivers and queues each 16 KiB piece (with its `Data`) whether or not the delegate keeps up
    /// with writing them, and a saved 1 GiB body held tens of MiB in waiting operations whenever the disk
    /// writes fell behind (docs/benchmarks.md). Waiting here stops libcurl from reading, so the kernel's
    /// socket buffer fills and TCP slows the server: the same flow control a download task gets by writing
    /// on the work thread itself. That thread's queue is one for the whole process (every session's work
    /// queue targets it), so a wait holds every URLSession transfer back until the delegate has written
    /// ``limit`` − ``resumeAt`` pieces (1 MiB by default). Operations queued from the delegate queue itself
    /// never wait (they would wait for themselves), and no wait lasts longer than ``longestWait``: a delegate
    /// that never drains costs time, never a deadlock.
    final class BoundedDelegateQueue: OperationQueue, @unchecked Sendable {
        // Safe: `state` is only read or written while `condition` is locked; the rest is immutable.
        private struct State {
            /// Operations queued and not yet finished.
            var pending = 0
            /// Producers waiting for the queue to drain.
            var waitingProducers = 0
        }

        private let condition = NSCondition()
        private var state = State()
        /// A producer waits when this many operations are pending.
        let limit: Int
        /// A waiting producer goes on once the pending operations are down to this many.
        let resumeAt: Int
        /// The longest one producer waits, whatever is pending.
        let longestWait: TimeInterval

        /// A serial queue; with the defaults a body waits in at most 128 pieces of 16 KiB (2 MiB).
        init(limit: Int = 128, resumeAt: Int = 64, longestWait: TimeInterval = 0.25) {
            self.limit = limit
            self.resumeAt = resumeAt
            self.longestWait = longestWait
            super.init()
            maxConcurrentOperationCount = 1
        }

        override func addOperation(_ block: @Sendable @escaping () -> Void) {
            admit()
            super.addOperation { [self] in
                block()
                finishedOne()
            }
        }

        /// Counts one more pending operation, after waiting for room when the queue is full.
        private func admit() {
            condition.lock()
            defer { condition.unlock() }
            if state.pending >= limit, OperationQueue.current !== self {
                let deadline = Date(timeIntervalSinceNow: longestWait)
                state.waitingProducers += 1
                while state.pending > resumeAt, condition.wait(until: deadline) {}
                state.waitingProducers -= 1
            }
            state.pending += 1
        }

        private func finishedOne() {
            condition.lock()
            defer { condition.unlock() }
            state.pending -= 1
            if state.waitingProducers > 0, state.pending <= resumeAt { condition.broadcast() }
        }
    }
#endif
