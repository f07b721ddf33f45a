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
    /// What `instanceSettings` set for hooks whose default reads it.
    var instanceSettings = AnyConnectionRequest.InstanceSettings()

    // MARK: The current run
    /// Which run, attempt and transfer, their timers, and whether the ending is claimed or visible.
    var lifecycle = RequestLifecycle()
    var identifier = RunIdentifiers.next()
    var redirectCount = 0
    var sentRequest: URLRequest?
    /// `sentRequest`'s method, kept as a plain string for cheap snapshots.
    var sentMethod: String?
    /// The request the current attempt started with (before redirects): what a retry sends again.
    var attemptRequest: URLRequest?
    /// The response of the current transfer, as the transport handed it over.
    var response: TransportResponse?
    var dateStarted: Date?
    var dateFinished: Date?
    var redactedURL: String?
    /// The timings of each attempt of the run, for the registry's history.
    var attemptMetrics: [ConnectionAttemptMetrics] = []
    var lastActivity: DispatchTime = .now()
    var upload = DirectionCounters()
    var download = DirectionCounters()
    /// `value()` callers waiting for this run's ending.
    var waiters: [Waiter] = []
    /// Waiters of the runs whose endings are being delivered right now, by the thread delivering each:
    /// two runs' endings may be delivered at once (a concurrent `callbackQueue`, or one delivered in
    /// place while the next run's goes to `callbackQueue`), and each resolves only its own waiters.
    var deliveringWaiters: [(thread: UInt, waiters: [Waiter])] = []
    /// Where the current run's events and processing work go when a task awaits it; `nil` for a run
    /// started with `start()`, whose events go to `callbackQueue`.
    var delivery: (run: RunNumber, delivery: RunDelivery)?

    // MARK: Client
    /// The client of the current (or last) run: what the `client` hook returned when it started.
    var client = ConnectionClient.shared
    /// The pipeline of the current run (its middleware and built-in stages), resolved when it started. The
    /// stages keep their own state of the run: this state holds none of a feature's.
    var pipeline = RunPipeline.empty
    /// The position of the middleware that answered the current attempt, if one did: only those before it
    /// hear the attempt's outcome.
    var answeringMiddleware: Int?
    /// A multipart body assembled on disk, uploaded from there; deleted when its run ends.
    var assembledBody: AssembledBody?
    /// The streamed body the current attempt's request carries, made again for each of its transfers.
    var streamedBody: RunStreamedBody?

    struct DirectionCounters {
        var completed: Int64 = 0
        var expected: Int64?
        var lastReport: DispatchTime?
        /// `completed` at the last report: a forced report of the same count (the body's end, right
        /// after the report that reached the expected length) is not made twice.
        var lastReportedBytes: Int64 = -1
    }

    /// Forgets what the last run left, for the run that starts now.
    mutating func beginRun() {
        identifier = RunIdentifiers.next()
        (response, sentRequest, sentMethod, attemptRequest, redactedURL) = (nil, nil, nil, nil, nil)
        attemptMetrics = []
        dateStarted = Date()
        dateFinished = nil
        resetTransferCounters()
    }

    /// Attempt number `attempt` of the current run begins.
    mutating func beginAttempt(_ attempt: Int) {
        redirectCount = 0
        answeringMiddleware = nil
        noteAttemptStarted(attempt, at: Date())
    }

    /// The run's ending becomes visible to readers.
    mutating func noteEnding() {
        let finished = Date()
        dateFinished = finished
        if attemptMetrics.last?.end == nil {
            noteAttemptEnded(at: finished)
        }
    }

    /// Resets what belongs to one attempt.
    mutating func resetTransferCounters() {
        upload = DirectionCounters()
        download = DirectionCounters()
        lastActivity = .now()
    }

    /// Where the request is, as ``AnyConnectionRequest/state`` shows it.
    var phase: ConnectionState { lifecycle.connectionState }

    /// The attempt in progress, or the last run's last one.
    var attempt: Int { lifecycle.attempt }

    /// The transfer in flight, if the transport returned it.
    var transfer: ActiveTransfer? { lifecycle.transfer }

    /// Where the events of `run` go when a task awaits it; `nil` for `callbackQueue`.
    func delivery(of run: RunNumber) -> RunDelivery? {
        guard let delivery, delivery.run == run else { return nil }
        return delivery.delivery
    }

    /// Whether events of transfer `number` still count.
    func isCurrent(_ number: TransferNumber) -> Bool { lifecycle.isCurrent(number) }
}

/// The request's state machine, over real transfers and the shared timers.
typealias RequestLifecycle = RequestStateMachine<ActiveTransfer, SharedTimer>

/// A `value()` caller waiting for the ending of one run.
struct Waiter: Sendable {
    let run: RunNumber
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
