import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Queues shared by all requests.
enum ConnectionQueues {
    /// Validation and parsing run here, off URLSession's delegate queue (which on Linux serialises
    /// every transfer in the process) and off the callback queue. `.userInitiated`: at `.utility`,
    /// a small request's ending waited up to seconds behind a bulk download on 2 cores (FileBench).
    static let processing = DispatchQueue(
        label: "ConnectionKit.processing", qos: .userInitiated, attributes: .concurrent)
    /// Idle timeouts, backoff waits and deadlines.
    static let timers = DispatchQueue(label: "ConnectionKit.timers", qos: .utility)

    /// A timer on ``timers``, already activated and not yet scheduled (so it does not fire until
    /// `schedule` is called). Activated at once because libdispatch traps when the last reference to
    /// a never-activated source goes away, which happens whenever a cancel races the arming of a timer.
    static func makeTimer() -> any DispatchSourceTimer {
        let timer = DispatchSource.makeTimerSource(queue: timers)
        timer.resume()
        return timer
    }
}

/// How a run ends.
enum RunOutcome: Sendable {
    case success(any Sendable)
    case failure(ConnectionError)
    case cancelled

    var phase: ConnectionState {
        switch self {
        case .success: return .finished
        case .failure: return .failed
        case .cancelled: return .cancelled
        }
    }
}

extension AnyConnectionRequest {
    // MARK: - Starting and cancelling

    /// Starts the request. The registry keeps it alive until it ends, so fire and forget works.
    /// Ignored while the request is running; an ended request starts a new run (new ``identifier``).
    public func start() {
        start(waiter: nil)
    }

    /// Starts a run, or joins the one in progress; `waiter` (if any) gets that run's ending. With
    /// `alreadyCancelled`, a new run ends cancelled before its first attempt, so nothing is sent.
    func start(waiter: (@Sendable (Result<any Sendable, any Error>) -> Void)?, alreadyCancelled: Bool = false) {
        let debugOutput = DebugOutput.isEnabled(for: self)
        let started: (run: UInt64, queue: DispatchQueue)? = storage.withLock { state in
            guard state.phase != .running else {
                if let waiter { state.waiters.append(Waiter(run: state.run, resume: waiter)) }
                return nil
            }
            state.phase = .running
            state.run &+= 1
            state.identifier = UUID()
            state.attempt = 0
            state.redirectCount = 0
            state.urlResponse = nil
            state.sentRequest = nil
            state.sentMethod = nil
            state.attemptRequest = nil
            state.redactedURL = nil
            state.attemptMetrics = []
            state.dateStarted = Date()
            state.dateFinished = nil
            state.deadline = nil
            state.resetTransferCounters()
            state.debugOutput = debugOutput
            state.responseBodyPreview = nil
            state.debugSecrets = []
            if let waiter { state.waiters.append(Waiter(run: state.run, resume: waiter)) }
            // Under the request's lock, like the removal in `finish`, so that a cancel racing this
            // start cannot leave an ended request in the registry.
            ConnectionRegistry.shared.register(self)
            return (state.run, state.callbackQueue)
        }
        guard let started else { return }
        guard !alreadyCancelled else {
            ConnectionRegistry.shared.emit(.started, for: self)
            finish(run: started.run, outcome: .cancelled)
            return
        }
        if let deadline = retryPolicy.deadline {
            armDeadline(run: started.run, after: deadline)
        }
        ConnectionRegistry.shared.emit(.started, for: self)
        beginAttempt(run: started.run)
    }

    /// Sets ``fileDestination`` and starts: the body is streamed to a temporary file beside
    /// `destination` and renamed into place when complete.
    public func startAndSave(to destination: URL) {
        fileDestination = destination
        start()
    }

    /// Cancels a running request: it ends with `ConnectionError.cancelled` on the failure path.
    /// Returns at once, whatever the transfer is doing. A no-op when the request is not running.
    public func cancel() {
        let run = storage.withLock { $0.phase == .running ? $0.run : nil }
        guard let run else { return }
        finish(run: run, outcome: .cancelled)
    }

    // MARK: - Attempts

    /// Builds and sends attempt number `attempt + 1` of `run`.
    func beginAttempt(run: UInt64) {
        let attempt: Int? = storage.withLock { state in
            guard state.run == run, state.phase == .running else { return nil }
            state.attempt += 1
            state.redirectCount = 0
            state.noteAttemptStarted(state.attempt, at: Date())
            return state.attempt
        }
        guard attempt != nil else { return }
        let request: URLRequest
        do {
            request = try prepareRequest()
        } catch {
            finish(run: run, outcome: .failure(contextualize(error, as: { .invalidRequest(reason: "\($0)") })))
            return
        }
        storage.withLock { $0.attemptRequest = request }
        beginTransfer(run: run, request: request)
    }

    /// Calls `makeURLRequest()`, applies authorization and ConnectionKit's checks.
    func prepareRequest() throws -> URLRequest {
        var request = try makeURLRequest()
        // Read before `authorization`: a refresh ending in between then only causes a needless retry.
        let generation = authorizationRefresher?.generation
        if request.value(forHTTPHeaderField: "Authorization") == nil, let authorization {
            let value = authorization.headerValue
            try WireValidation.check(method: nil, headerFields: [("Authorization", value)], hook: "authorization")
            request.setValue(value, forHTTPHeaderField: "Authorization")
        }
        storage.withLock { $0.authorizationGeneration = generation }
        try RequestChecks.check(&request, timeoutInterval: timeoutInterval, secretQueryItems: secretQueryItems)
        try checkFileDestination()
        return request
    }

    /// Sends `request` as the current transfer of `run` (a new attempt or a redirect hop), once its method
    /// and headers pass the wire check: the last word on whatever `makeURLRequest()` returned.
    func beginTransfer(run: UInt64, request: URLRequest) {
        var request = request
        let fileTarget: FileTarget?
        do {
            fileTarget = try makeFileTarget(resuming: &request)
        } catch {
            // Not retried: a file planted beside the destination stays there until someone removes it.
            finish(run: run, outcome: .failure(contextualize(error, as: { .fileSystem(underlying: $0) })))
            return
        }
        do {
            try WireValidation.check(request, hook: "makeURLRequest()")
        } catch {
            finish(run: run, outcome: .failure(contextualize(error)))
            return
        }
        // The class's TLS configuration, or a refusal before anything is sent (see TLSRouting).
        let transport: any Transport
        do {
            transport = try TLSRouting.transport(self.transport.implementation, for: self, url: request.url)
        } catch {
            finish(run: run, outcome: .failure(contextualize(error)))
            return
        }
        let redacted = Redaction.redactedURL(request.url, secretQueryItems: secretQueryItems)
        let method = request.httpMethod ?? "GET"
        let receiver = TransferContext(request: self, run: run, fileTarget: fileTarget)
        let serial: UInt64? = storage.withLock { state in
            guard state.run == run, state.phase == .running else { return nil }
            state.transferSerial &+= 1
            state.sentRequest = request
            state.sentMethod = method
            state.redactedURL = redacted
            state.urlResponse = nil
            state.resetTransferCounters()
            return state.transferSerial
        }
        guard let serial else { return }
        DebugOutput.requestSent(request, by: self)
        receiver.serial = serial
        let handle = (fileTarget == nil ? transport : transport.fileTransport).startTransfer(
            request, bodyFile: bodyFile(for: request, run: run), receiver: receiver)
        let transfer = ActiveTransfer(handle: handle, context: receiver)
        let stale: Bool = storage.withLock { state in
            guard state.isCurrent(run: run, serial: serial) else { return true }
            state.transfer = transfer
            return false
        }
        if stale {
            // Cancelled (or timed out) while the transfer was being created.
            transfer.abandon()
            return
        }
        armIdleTimer(run: run, serial: serial)
    }

    /// Claims the end of transfer `serial`: later events of it are ignored. Returns the attempt
    /// number and the transfer, or `nil` when the transfer no longer counts.
    func claimTransfer(run: UInt64, serial: UInt64) -> (attempt: Int, transfer: ActiveTransfer?)? {
        let claimed: (Int, ActiveTransfer?, (any DispatchSourceTimer)?)? = storage.withLock { state in
            guard state.isCurrent(run: run, serial: serial) else { return nil }
            state.transferSerial &+= 1
            state.noteAttemptEnded(at: Date())
            defer { (state.transfer, state.idleTimer) = (nil, nil) }
            return (state.attempt, state.transfer, state.idleTimer)
        }
        guard let claimed else { return nil }
        claimed.2?.cancel()
        return (claimed.0, claimed.1)
    }

    /// A transfer failed (transport error, timeout, bad status, size limit…): retry or end.
    func attemptFailed(run: UInt64, serial: UInt64, error: ConnectionError, response: HTTPURLResponse?) {
        guard let claimed = claimTransfer(run: run, serial: serial) else { return }
        claimed.transfer?.abandon()
        retryOrFail(run: run, attempt: claimed.attempt, error: error, response: response)
    }

    /// Asks ``retryDecision(for:attempt:response:)`` and either waits and retries, or ends the run.
    func retryOrFail(run: UInt64, attempt: Int, error: ConnectionError, response: HTTPURLResponse?) {
        let error = contextualize(error)
        if refreshAuthorization(run: run, attempt: attempt, after: error) { return }
        guard case .retry(let delay) = retryDecision(for: error, attempt: attempt, response: response) else {
            finish(run: run, outcome: .failure(error))
            return
        }
        let wait = RetryPolicy.sanitizedWait(delay)
        let timer = ConnectionQueues.makeTimer()
        // The handler is set before the timer is shared, and the timer is cancelled on every path that
        // drops it: a cancelled source releases its handler, which breaks the timer-handler cycle.
        timer.setEventHandler { [weak self] in
            timer.cancel()
            self?.beginAttempt(run: run)
        }
        let scheduled: Bool = storage.withLock { state in
            guard state.run == run, state.phase == .running else { return false }
            if let deadline = state.deadline, DispatchTime.now() + wait >= deadline { return false }
            state.backoffTimer?.cancel()
            state.backoffTimer = timer
            return true
        }
        guard scheduled else {
            timer.cancel()
            finish(run: run, outcome: .failure(error))
            return
        }
        ConnectionRegistry.shared.emit(.retried(attempt: attempt + 1, after: wait, error: error), for: self)
        timer.schedule(deadline: .now() + wait)
    }

    // MARK: - Timers

    /// Fails the transfer when `timeoutInterval` passes without activity; re-arms itself for the rest.
    private func armIdleTimer(run: UInt64, serial: UInt64) {
        let timeout = timeoutInterval
        guard timeout.isFinite else { return }
        let timer = ConnectionQueues.makeTimer()
        timer.setEventHandler { [weak self] in
            guard let self else {
                timer.cancel()
                return
            }
            let remaining: Double? = self.storage.withLock { state in
                guard state.isCurrent(run: run, serial: serial) else { return nil }
                let idle = Double(DispatchTime.now().uptimeNanoseconds - state.lastActivity.uptimeNanoseconds) / 1e9
                return timeout - idle
            }
            guard let remaining else {
                timer.cancel()
                return
            }
            if remaining > 0.001 {
                timer.schedule(deadline: .now() + remaining)
            } else {
                timer.cancel()
                self.attemptFailed(run: run, serial: serial, error: ConnectionError(.timedOut), response: nil)
            }
        }
        let armed: Bool = storage.withLock { state in
            guard state.isCurrent(run: run, serial: serial) else { return false }
            state.idleTimer?.cancel()
            state.idleTimer = timer
            return true
        }
        guard armed else {
            timer.cancel()
            return
        }
        timer.schedule(deadline: .now() + timeout)
    }

    /// Ends the run with `.timedOut` when the retry policy's deadline passes.
    private func armDeadline(run: UInt64, after seconds: TimeInterval) {
        let timer = ConnectionQueues.makeTimer()
        timer.setEventHandler { [weak self] in
            timer.cancel()
            self?.finish(run: run, outcome: .failure(ConnectionError(.timedOut)))
        }
        let deadline = DispatchTime.now() + RetryPolicy.sanitizedWait(seconds)
        let armed: Bool = storage.withLock { state in
            guard state.run == run, state.phase == .running else { return false }
            state.deadline = deadline
            state.deadlineTimer = timer
            return true
        }
        guard armed else {
            timer.cancel()
            return
        }
        timer.schedule(deadline: deadline)
    }

    // MARK: - Ending

    /// Ends `run` with `outcome`, once: the first caller wins, later ones do nothing.
    /// `commit` runs after the ending is claimed and before delivery (e.g. renaming a saved file
    /// into place); if it throws, the run fails with that error instead.
    /// Returns whether this call ended the run.
    @discardableResult
    func finish(run: UInt64, outcome: RunOutcome, commit: (() throws -> Void)? = nil) -> Bool {
        var outcome = outcome
        if case .failure(let error) = outcome {
            outcome = .failure(contextualize(error))
        }
        let ending: (queue: DispatchQueue, transfer: ActiveTransfer?, timers: [any DispatchSourceTimer])? =
            storage.withLock { state in
                guard state.run == run, state.phase == .running else { return nil }
                state.phase = outcome.phase
                state.dateFinished = Date()
                if state.attemptMetrics.last?.end == nil, let finished = state.dateFinished {
                    state.noteAttemptEnded(at: finished)
                }
                state.transferSerial &+= 1
                let transfer = state.transfer
                state.transfer = nil
                ConnectionRegistry.shared.unregister(self)
                return (state.callbackQueue, transfer, state.takeTimers())
            }
        guard let ending else { return false }
        runWillEnd(run, outcome: outcome)
        // Stops the transfer's events at once; its body is dropped below, off the caller's thread.
        ending.transfer?.handle.cancel()
        ending.timers.forEach { $0.cancel() }
        discardAssembledBody(of: run)
        if let commit {
            do {
                try commit()
            } catch {
                let failure = contextualize(error, as: { .fileSystem(underlying: $0) })
                storage.withLock { $0.phase = .failed }
                outcome = .failure(failure)
            }
        }
        ConnectionRegistry.shared.emit(.ended(outcome), for: self)
        let waiters: [Waiter] = storage.withLock { state in
            let (mine, others) = state.waiters.partitioned { $0.run == run }
            state.waiters = others
            return mine
        }
        let ended = outcome
        let queue = ending.queue
        guard let context = ending.transfer?.context else {
            queue.async { self.deliver(ended, waiters: waiters) }
            return true
        }
        // Dropping a body saved to file (waiting out a write, closing, unlinking hundreds of MB)
        // took 16-300 ms under disk load in FileBench: `cancel()` must return at once, and the
        // handler must still run only once the temporary file is gone.
        ConnectionQueues.processing.async {
            context.abandon()
            queue.async { self.deliver(ended, waiters: waiters) }
        }
        return true
    }

    /// Runs on the callback queue: the user-visible ending.
    private func deliver(_ outcome: RunOutcome, waiters: [Waiter]) {
        let interceptor = storage.withLock { state in
            state.deliveringWaiters = waiters
            defer { state.offlineInterceptor = nil }
            return state.offlineInterceptor
        }
        let fallback: Result<any Sendable, any Error>
        switch outcome {
        case .success(let output):
            deliverOutput(output)
            fallback = .success(output)
        case .failure(let error):
            if let interceptor, interceptor(error) {
                // Queued for later delivery: the offline handler ran instead of the failure path.
                resolveWaiters(with: .failure(parseError(error)))
                return
            }
            let mapped = parseError(error)
            handleConnectionError(mapped)
            fallback = .failure(mapped)
        case .cancelled:
            let mapped = parseError(contextualize(ConnectionError(.cancelled)))
            handleConnectionError(mapped)
            fallback = .failure(mapped)
        }
        // An override that delivered nothing still ends `value()`.
        resolveWaiters(with: fallback)
    }

    /// Ends every `value()` caller of the ending being delivered. Later calls do nothing.
    func resolveWaiters(with result: Result<any Sendable, any Error>) {
        let waiters = storage.withLock { state in
            defer { state.deliveringWaiters = [] }
            return state.deliveringWaiters
        }
        waiters.forEach { $0.resume(result) }
    }

    // MARK: - Errors

    /// Fills in the request's class, error code and redacted URL; wraps a foreign error; redacts the URLs
    /// inside a transport error (users reach it through `kind` and `underlyingError`).
    func contextualize(
        _ error: any Error, as wrap: (any Error) -> ConnectionError.Kind = { .other(underlying: $0) }
    ) -> ConnectionError {
        var result: ConnectionError
        if let error = error as? ConnectionError {
            result = error
        } else if let error = error as? URLError {
            result = ConnectionError(.transport(error))
        } else {
            result = ConnectionError(wrap(error))
        }
        if result.requestTypeName.isEmpty { result.requestTypeName = typeName }
        if result.errorCode == 0 { result.errorCode = errorCode }
        if result.redactedURL == nil { result.redactedURL = storage.withLock { $0.redactedURL } }
        if case .transport(let urlError) = result.kind {
            result.kind = .transport(Redaction.scrubbed(urlError, secretQueryItems: secretQueryItems))
        }
        return result
    }
}

extension Array {
    /// Splits into the elements that match and those that do not, keeping order.
    func partitioned(by belongs: (Element) -> Bool) -> (matching: [Element], rest: [Element]) {
        var matching: [Element] = []
        var rest: [Element] = []
        for element in self {
            if belongs(element) { matching.append(element) } else { rest.append(element) }
        }
        return (matching, rest)
    }
}
