import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Everything mutable about one request, kept behind the request's one lock.
struct RequestState {
    // MARK: Settings and handlers
    var fileDestination: URL?
    var callbackQueue: DispatchQueue = .main
    var failureHandler: (@Sendable (any Error) -> Void)?
    var progressHandler: (@Sendable (TransferProgress) -> Void)?
    /// `ConnectionRequest<Output>`'s completion handler, type-erased so that one lock guards it too.
    var completionHandler: (any Sendable)?
    /// `BasicConnectionRequest.request`.
    var oneOffRequest: URLRequest?
    /// The URL given to `DownloadRequest(from:to:)`.
    var downloadSource: URL?
    /// Set by `OfflineQueue.start(_:onOffline:)` for one run: offered the failure first, on the callback
    /// queue; when it returns `true` (the request was queued) the failure path is skipped.
    var offlineInterceptor: (@Sendable (ConnectionError) -> Bool)?

    // MARK: The current run
    var phase: ConnectionState = .idle
    var identifier = UUID()
    /// Bumped by every start; events of an older run are ignored.
    var run: UInt64 = 0
    var attempt = 0
    /// Bumped by every transfer (attempts and redirect hops); events of an older transfer are ignored.
    var transferSerial: UInt64 = 0
    var transfer: ActiveTransfer?
    var redirectCount = 0
    var sentRequest: URLRequest?
    /// `sentRequest`'s method, kept as a plain string for cheap snapshots.
    var sentMethod: String?
    /// The request the current attempt started with (before redirects): what a retry sends again.
    var attemptRequest: URLRequest?
    var urlResponse: HTTPURLResponse?
    var dateStarted: Date?
    var dateFinished: Date?
    var redactedURL: String?
    /// The timings of each attempt of the run, for the registry's history.
    var attemptMetrics: [ConnectionAttemptMetrics] = []
    /// Fires when `timeoutInterval` passes without a byte; one per transfer.
    var idleTimer: (any DispatchSourceTimer)?
    /// Waits out a retry's backoff.
    var backoffTimer: (any DispatchSourceTimer)?
    /// The retry policy's overall deadline, for the whole run.
    var deadlineTimer: (any DispatchSourceTimer)?
    var deadline: DispatchTime?
    var lastActivity: DispatchTime = .now()
    var upload = DirectionCounters()
    var download = DirectionCounters()
    /// Whether this run prints debug output (decided once per start).
    var debugOutput = false
    /// The start of the final response's body, kept only when `debugOutput` is on.
    var responseBodyPreview: ResponseBodyPreview?
    /// Secret values this run sent (longest first), scrubbed from body previews; debug runs only.
    var debugSecrets: [String] = []
    /// `value()` callers waiting for this run's ending.
    var waiters: [Waiter] = []
    /// Waiters of the run whose ending is being delivered right now.
    var deliveringWaiters: [Waiter] = []

    // MARK: Client: authorization refresh and body file
    /// The ``AuthorizationRefresher`` generation when the current attempt's authorization was applied.
    var authorizationGeneration: UInt64?
    /// The run that already retried after a refresh (a run retries once).
    var refreshedRun: UInt64?
    /// A multipart body assembled on disk, uploaded from there; deleted when its run ends.
    var assembledBody: AssembledBody?

    struct DirectionCounters {
        var completed: Int64 = 0
        var expected: Int64?
        var lastReport: DispatchTime?
    }

    /// Resets what belongs to one attempt.
    mutating func resetTransferCounters() {
        upload = DirectionCounters()
        download = DirectionCounters()
        lastActivity = .now()
    }

    /// Forgets the timers of the run and returns them, to be cancelled outside the lock.
    mutating func takeTimers() -> [any DispatchSourceTimer] {
        defer { (idleTimer, backoffTimer, deadlineTimer) = (nil, nil, nil) }
        return [idleTimer, backoffTimer, deadlineTimer].compactMap { $0 }
    }

    /// Whether events of transfer `serial` of run `run` still count.
    func isCurrent(run: UInt64, serial: UInt64) -> Bool {
        self.run == run && phase == .running && transferSerial == serial
    }
}

/// A `value()` caller waiting for the ending of one run.
struct Waiter: Sendable {
    let run: UInt64
    let resume: @Sendable (Result<any Sendable, any Error>) -> Void
}

/// The transfer in flight: its handle (to cancel it) and its receiver (to drop its body).
struct ActiveTransfer {
    let handle: any TransferHandle
    let context: TransferContext

    /// Stops the transfer and throws away what it received. Call outside the lock.
    func abandon() {
        handle.cancel()
        context.abandon()
    }
}
