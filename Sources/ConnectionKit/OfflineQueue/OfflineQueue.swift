import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A persisted queue of writes made while the network was unreachable, delivered in order once it is back,
/// across app restarts and crashes: what the FatFractal SDK's `onOffline:` block gave, for any request.
///
/// ```swift
/// let queue = try OfflineQueue(directory: appSupport.appendingPathComponent("outbox"))
/// queue.register(PostMicropost.self) { PostMicropost() }
/// queue.start(PostMicropost(text: "hello")) { operation in
///     print("offline: queued as \(operation.idempotencyKey)")
/// }
/// ```
///
/// **What is stored.** Method, URL, headers, body (in the operation's journal record, or a body file when
/// large), the request's class name, an `Idempotency-Key` minted once at enqueue and sent on every attempt,
/// the enqueue date and the attempt count. Secrets are never written: `Authorization`, `Cookie` and the
/// class's secret headers and query items are removed, and applied again at send time from the class
/// registered under the stored name (its ``AnyConnectionRequest/authorization`` and
/// ``AnyConnectionRequest/requestHeaderFields``). Operations are records of an append-only journal; files
/// are created with mode 0600 (see `docs/offline-queue.md`).
///
/// **Delivery.** In order, one at a time (or up to ``Configuration/maximumInFlight`` at once), through
/// ``QueuedOperationRequest`` (so each attempt shows in ``ConnectionRegistry``). A failed attempt is retried after ``Configuration/onlineRetryInterval`` (1 s)
/// when it reached the server and ``Configuration/offlineRetryInterval`` (10 s) when it did not. A 4xx other
/// than 408 and 429, a request that cannot be built, or an operation past ``Configuration/maximumAttempts``
/// or ``Configuration/maximumAge`` is moved to ``deadLetters`` and the queue goes on.
///
/// **Crash safety.** Once ``enqueue(_:)`` has returned, the operation is on disk (synced): a process killed at
/// any instant, or a power cut, loses none, and the next process opening the directory delivers each at
/// least once, with its original `Idempotency-Key`. Concurrent enqueues share one sync (group commit). A
/// corrupt entry is moved to `corrupt/` with a log line.
///
/// **Trust.** The directory is opened only when it and everything in it belong to this user, are not
/// writable by the group or others, and are not symbolic links (``OfflineQueueError``). A stored operation
/// is sent with its class's credentials only to the origin that class builds.
///
/// One directory is opened by one queue at a time (a lock file enforces it, also across processes).
/// - SeeAlso: <doc:offline-queue>
public final class OfflineQueue: Sendable {
    /// The directory the queue lives in.
    public let directory: URL
    /// The settings it was opened with.
    public let configuration: Configuration
    let store: OfflineStore
    /// The pending operations on disk; assigns sequence numbers and group-commits enqueues.
    let journal: OfflineJournal
    let state = Locked(OfflineQueueState())
    /// Attempts, timers and request endings run here, one at a time.
    let worker = DispatchQueue(label: "ConnectionKit.OfflineQueue", qos: .utility)
    /// Requests that failed offline are stored here, in the order they failed, so that the journal's sync
    /// never blocks their callback queue (``start(_:onOffline:)``).
    let offlineStores = DispatchQueue(label: "ConnectionKit.OfflineQueue.offlineStores", qos: .userInitiated)

    /// Opens the queue in `directory` (created with mode 0700 when missing) and starts delivering what a
    /// previous process left in it. Register your request classes right after opening (or before the first
    /// delivery can need them): an operation whose class is not registered waits, and registering it
    /// triggers an attempt.
    ///
    /// Throws `ConnectionError.fileSystem` when the directory cannot be created or read, or is already open
    /// (in this process or another); with an ``OfflineQueueError`` as its underlying error when the directory,
    /// or a file or folder in it, is a symbolic link, is writable by the group or others, or belongs to
    /// another user.
    public convenience init(directory: URL, configuration: Configuration = Configuration()) throws {
        try self.init(directory: directory, configuration: configuration, files: POSIXOfflineFileOperations())
    }

    /// Opens the queue with its file changes going through `files` (tests record them) and journal segments of
    /// `segmentLimit` bytes.
    init(
        directory: URL, configuration: Configuration, files: any OfflineFileOperations,
        segmentLimit: Int = 4 * 1024 * 1024
    ) throws {
        self.directory = directory
        self.configuration = configuration
        store = try OfflineStore(directory: directory, files: files)
        let loaded: OfflineStore.Loaded
        do {
            loaded = try store.load(log: configuration.log, segmentLimit: segmentLimit)
        } catch {
            store.releaseLock()
            throw error
        }
        journal = loaded.journal
        worker.setSpecific(key: Self.workerKey, value: ObjectIdentifier(self))
        state.withLock { state in
            state.pending = loaded.pending
            state.deadLetters = loaded.dead
        }
        kick()
    }

    deinit {
        let (timer, requests) = state.withLock { ($0.delivery.timer, Array($0.inFlight.values)) }
        timer?.cancel()
        for request in requests { request.cancel() }
        journal.close()
        store.releaseLock()
    }

    // MARK: - Registering request classes

    /// Registers how to make an instance of `type` for sending its queued operations: the queue asks that
    /// instance for ``AnyConnectionRequest/authorization``, the secret headers in
    /// ``AnyConnectionRequest/requestHeaderFields``, ``AnyConnectionRequest/timeoutInterval`` and the redirect
    /// settings at each attempt. Keyed by the class's name (``AnyConnectionRequest/typeName``).
    public func register<Request: AnyConnectionRequest>(
        _ type: Request.Type, factory: @escaping @Sendable () -> Request
    ) {
        register(typeName: String(describing: type), factory: factory)
    }

    /// Registers a factory under a stored class name, e.g. for a class that was renamed since its operations
    /// were queued.
    ///
    /// The factory is called once here: an instance with no ``AnyConnectionRequest/url`` is logged (through
    /// ``Configuration/log``), because a stored write is sent only to the origin its class's instance builds,
    /// and one with no URL matches none (its writes would be dead-lettered).
    public func register(typeName: String, factory: @escaping @Sendable () -> AnyConnectionRequest) {
        if factory().url == nil {
            configuration.log(
                "the factory registered for \(typeName) builds an instance with no URL: its stored writes would be "
                    + "dead-lettered, as they are sent only to the origin that instance builds; make it build a URL "
                    + "with the class's origin (see \"Registering classes\" in docs/offline-queue.md)")
        }
        state.withLock { state in
            state.factories[typeName] = factory
            state.unregisteredMisses[typeName] = nil
        }
        step(.attemptNow)
    }

    // MARK: - Handlers

    /// Called on ``Configuration/callbackQueue`` with each delivered operation and the response body.
    /// Default `nil`.
    public var deliveredHandler: (@Sendable (QueuedOperation, Data) -> Void)? {
        get { state.withLock { $0.deliveredHandler } }
        set { state.withLock { $0.deliveredHandler = newValue } }
    }

    /// Called on ``Configuration/callbackQueue`` with each operation moved to ``deadLetters``. Default `nil`.
    public var deadLetterHandler: (@Sendable (DeadLetter) -> Void)? {
        get { state.withLock { $0.deadLetterHandler } }
        set { state.withLock { $0.deadLetterHandler = newValue } }
    }

    /// Called on ``Configuration/callbackQueue`` after each failed attempt, with the wait before the next.
    /// Default `nil`.
    public var failedAttemptHandler: (@Sendable (FailedAttempt) -> Void)? {
        get { state.withLock { $0.failedAttemptHandler } }
        set { state.withLock { $0.failedAttemptHandler = newValue } }
    }

    // MARK: - Tooling

    /// The operations waiting, in delivery order (the first may be in flight).
    public var pending: [QueuedOperation] { state.withLock { $0.pending } }

    /// The operations given up on, oldest first.
    public var deadLetters: [DeadLetter] { state.withLock { $0.deadLetters } }

    /// Removes a pending operation or a dead letter (matched by ``QueuedOperation/id``) and its files. A pending
    /// operation in flight is cancelled (the server may still have received it). Returns whether it was found.
    @discardableResult
    public func remove(_ operation: QueuedOperation) throws -> Bool {
        // On the worker, so that no attempt records a count for the operation after it was resolved.
        try onWorker { try removeOnWorker(operation) }
    }

    private func removeOnWorker(_ operation: QueuedOperation) throws -> Bool {
        let found: (pending: QueuedOperation?, dead: DeadLetter?, cancel: QueuedOperationRequest?) = state.withLock {
            state in
            if let index = state.pending.firstIndex(where: { $0.id == operation.id }) {
                let removed = state.pending[index]
                _ = state.removePending(removed)
                return (removed, nil, state.inFlight.removeValue(forKey: operation.id))
            }
            if let index = state.deadLetters.firstIndex(where: { $0.operation.id == operation.id }) {
                return (nil, state.deadLetters.remove(at: index), nil)
            }
            return (nil, nil, nil)
        }
        found.cancel?.cancel()
        if let pending = found.pending {
            // Synced: a removed operation must not come back after a power cut and be sent.
            try journal.resolve([pending.sequence], sync: true)
            store.removeBody(named: pending.bodyFileName)
        }
        if let dead = found.dead { try store.removeDead(dead.operation) }
        return found.pending != nil || found.dead != nil
    }

    // MARK: - Connectivity

    /// Whether the network looks reachable: what the app last said with ``setReachable(_:)`` (until the next
    /// attempt's result replaces it), otherwise whether the last attempt reached the server; `nil` before either.
    public var isReachable: Bool? {
        state.withLock { $0.reportedReachable ?? $0.lastAttemptReachedServer }
    }

    /// Tells the queue what the platform knows (e.g. from `NWPathMonitor` on Apple platforms). `true` makes
    /// the next attempt happen now instead of at the end of its wait (the moment the network is back);
    /// `false` is reported by ``isReachable`` until an attempt says otherwise. Without calls to this, the queue
    /// judges from its own attempts: unreachable while they fail with transport errors.
    public func setReachable(_ reachable: Bool) {
        state.withLock { $0.reportedReachable = reachable }
        if reachable { step(.attemptNow) }
    }

    /// Stops attempts (the one in flight finishes) until ``resume()``; enqueueing still works. Default: running.
    public func suspend() {
        step(.suspend)
    }

    /// Resumes attempts after ``suspend()``, starting one now.
    public func resume() {
        step(.resume)
    }

    /// Stops the queue and releases its directory (so another queue or process may open it): the wait is
    /// cancelled, an attempt in flight is cancelled (it stays queued), and ``enqueue(_:)`` throws from now
    /// on. Closing happens by itself when the queue is deallocated. Idempotent.
    public func close() {
        let (actions, requests) = state.withLock { state in
            defer { state.inFlight = [:] }
            return (state.delivery.handle(.close), Array(state.inFlight.values))
        }
        actions.cancel?.cancel()
        for request in requests { request.cancel() }
        // Waits for a group commit under way; enqueues throw from now on. The marks written since the last
        // commit are synced.
        journal.close()
        // Let the worker finish what it is doing, so no file is written after this returns.
        onWorker {}
        store.releaseLock()
    }

    /// Runs `body` on the worker and waits for it; runs it in place when already there (e.g. from a factory).
    private func onWorker<Result>(_ body: () throws -> Result) rethrows -> Result {
        if DispatchQueue.getSpecific(key: Self.workerKey) == ObjectIdentifier(self) {
            return try body()
        }
        return try worker.sync(execute: body)
    }

    /// Marks the worker queues, so that ``onWorker(_:)`` can tell it is on one.
    static let workerKey = DispatchSpecificKey<ObjectIdentifier>()
}
