import Foundation

extension OfflineQueue {
    /// How an ``OfflineQueue`` retries and when it gives up. Every property states its default.
    public struct Configuration: Sendable {
        /// Seconds between attempts while the last attempt reached the server (it answered 5xx, 408 or 429).
        /// Default 1, as the FatFractal SDK.
        public var onlineRetryInterval: TimeInterval
        /// Seconds between attempts while the last attempt did not reach the server (no connection, DNS
        /// failure, connection refused or lost, timeout before any response). Default 10, as the FatFractal SDK.
        public var offlineRetryInterval: TimeInterval
        /// When set, the wait before a retry is at least this policy's ``RetryPolicy/backoff(beforeRetry:)``
        /// for the number of consecutive failures (and its `Retry-After` handling applies). Default `nil`: the
        /// fixed intervals above.
        public var backoff: RetryPolicy?
        /// Attempts after which an operation that still fails is dead-lettered. Default `nil` (no limit).
        public var maximumAttempts: Int?
        /// Seconds after enqueue after which an operation that still fails is dead-lettered. Default 7 days.
        public var maximumAge: TimeInterval?
        /// Bodies up to this many bytes are kept in the operation's journal record; larger ones in a body file of
        /// their own. Default 64 KiB.
        public var inlineBodyLimit: Int
        /// How many operations may be in flight at once. Default 1: one at a time, so the server receives
        /// them in enqueue order. With N > 1 the queue starts them in enqueue order but never starts one more
        /// than N − 1 places after the oldest that is not yet delivered; they travel on separate connections,
        /// so the server may receive any of those N in any order (and a retried one after those behind it).
        /// Use it for writes that do not depend on each other. Values below 1 count as 1.
        public var maximumInFlight: Int
        /// Back-pressure: ``OfflineQueue/enqueue(_:)`` throws ``OfflineQueueError/Kind/full(pendingOperations:pendingBytes:)``
        /// instead of storing an operation past this many pending ones. Default 100,000.
        public var maximumPendingOperations: Int
        /// Back-pressure: ``OfflineQueue/enqueue(_:)`` throws ``OfflineQueueError/Kind/full(pendingOperations:pendingBytes:)``
        /// instead of storing a body that would take the pending bodies past this many bytes. Default 1 GiB.
        public var maximumPendingBytes: Int
        /// Where the delivered and dead-letter handlers run. Default `.main`.
        public var callbackQueue: DispatchQueue
        /// Receives the queue's log lines (a corrupt entry moved aside, a class that is not registered).
        /// Default: written to standard error.
        public var log: @Sendable (String) -> Void

        /// Creates a configuration; every argument defaults to the value documented on its property.
        public init(
            onlineRetryInterval: TimeInterval = 1,
            offlineRetryInterval: TimeInterval = 10,
            backoff: RetryPolicy? = nil,
            maximumAttempts: Int? = nil,
            maximumAge: TimeInterval? = 7 * 24 * 3600,
            inlineBodyLimit: Int = 64 * 1024,
            maximumInFlight: Int = 1,
            maximumPendingOperations: Int = 100_000,
            maximumPendingBytes: Int = 1 << 30,
            callbackQueue: DispatchQueue = .main,
            log: @escaping @Sendable (String) -> Void = OfflineQueue.logToStandardError
        ) {
            self.onlineRetryInterval = onlineRetryInterval
            self.offlineRetryInterval = offlineRetryInterval
            self.backoff = backoff
            self.maximumAttempts = maximumAttempts
            self.maximumAge = maximumAge
            self.inlineBodyLimit = inlineBodyLimit
            self.maximumInFlight = maximumInFlight
            self.maximumPendingOperations = maximumPendingOperations
            self.maximumPendingBytes = maximumPendingBytes
            self.callbackQueue = callbackQueue
            self.log = log
        }
    }

    /// The default ``Configuration/log``: one line on standard error, prefixed `ConnectionKit.OfflineQueue:`.
    @Sendable public static func logToStandardError(_ message: String) {
        FileHandle.standardError.write(Data("ConnectionKit.OfflineQueue: \(message)\n".utf8))
    }
}
