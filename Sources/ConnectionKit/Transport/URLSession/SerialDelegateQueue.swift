#if canImport(FoundationNetworking)
    import Foundation
    import FoundationNetworking

    /// The delegate queue of the session for bodies kept in memory: each call URLSession hands it runs on one
    /// serial dispatch queue, in the order it was handed over, one at a time.
    ///
    /// FoundationNetworking hands every delegate call (the response, each piece of the body, the metrics, the
    /// completion) to the session's delegate queue with `addOperation(_:)`. On Linux an `OperationQueue` wraps
    /// each one in a `BlockOperation` with its own state changes and locks before it reaches libdispatch, and
    /// a small GET takes four such calls where a completion handler takes one; a serial dispatch queue keeps
    /// the order and the one-at-a-time guarantee the delegate relies on without that cost
    /// (docs/benchmarks.md). FoundationNetworking uses only the block form on a delegate queue; an
    /// `Operation` added by other code still runs on the `OperationQueue` itself, unordered with the blocks.
    final class SerialDelegateQueue: OperationQueue, @unchecked Sendable {
        // Safe: the only stored property is an immutable dispatch queue.
        private let calls = DispatchQueue(label: "ConnectionKit.session-delegate")

        override init() {
            super.init()
            maxConcurrentOperationCount = 1
        }

        override func addOperation(_ block: @Sendable @escaping () -> Void) {
            calls.async(execute: block)
        }
    }
#endif
