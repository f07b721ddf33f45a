import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension AnyConnectionRequest {
    // MARK: - Starting and cancelling

    /// Starts the request. The registry keeps it alive until it ends, so fire and forget works.
    /// Ignored while the request is running; an ended request starts a new run (new ``identifier``).
    public func start() {
        start(waiter: nil)
    }

    /// Starts the request on `client` instead of the class's ``client``: its registry lists the run, its
    /// transport, HTTP cache and cookie jar serve it (unless the class overrides ``transport``,
    /// ``httpCache`` or ``cookieJar``), its shutdown drains it. For one request on a service's own client
    /// without a subclass per client. Ignored while the request is running.
    public func start(on client: ConnectionClient) {
        start(waiter: nil, on: client)
    }

    /// Starts a run, or joins the one in progress; `waiter` (if any) gets that run's ending. With
    /// `alreadyCancelled`, a new run ends cancelled before its first attempt, so nothing is sent. A new run
    /// started for a task that awaits it delivers as `delivery` says instead of on `callbackQueue`; a run
    /// joined keeps its own delivery.
    func start(
        waiter: (@Sendable (Result<any Sendable, any Error>) -> Void)?, delivery: RunDelivery? = nil,
        on chosen: ConnectionClient? = nil, alreadyCancelled: Bool = false
    ) {
        let client = chosen ?? self.client
        let action = storage.withLock { state in
            let action = state.lifecycle.handle(.start)
            switch action {
            case .startRun(let run):
                state.beginRun()
                state.client = client
                state.pipeline = .empty
                if let waiter { state.waiters.append(Waiter(run: run, resume: waiter)) }
                state.delivery = delivery.map { (run, $0) }
            case .joinRun(let run):
                if let waiter { state.waiters.append(Waiter(run: run, resume: waiter)) }
            default:
                break
            }
            return action
        }
        guard case .startRun(let run) = action else { return }
        // Counted until its ending was reported, so that a shutdown waits for it; refused once one began.
        guard client.admitRun() else {
            client.notify(.started, for: self)
            finish(run: run, outcome: .failure(ConnectionError(.clientShutDown)))
            return
        }
        // Outside the request's lock: an ending that ran first has nobody to remove, so the run is
        // checked again once registered.
        client.registry.register(self, run: run)
        // User code (the hooks, `runStarted`), read outside the lock once the run's client is set, which the
        // hooks' defaults read; a joined run keeps its own.
        let pipeline = RunPipeline.resolve(for: self, on: client)
        let running = storage.withLock { state in
            guard state.lifecycle.isRunning(run) else { return false }
            state.pipeline = pipeline
            return true
        }
        if !running {
            client.registry.unregister(self, run: run)
        }
        guard !alreadyCancelled else {
            client.notify(.started, for: self)
            finish(run: run, outcome: .cancelled)
            return
        }
        if let deadline = retryPolicy.deadline {
            armDeadline(run: run, after: deadline)
        }
        client.notify(.started, for: self)
        resumeAttempts(after: .firstAttempt(run))
    }

    /// Sets ``fileDestination`` and starts: the body is streamed to a temporary file beside
    /// `destination` and renamed into place when complete.
    public func startAndSave(to destination: URL) {
        fileDestination = destination
        start()
    }

    /// Runs `work`, processing work of `run` (a transfer's completion, a cached answer, a timer's
    /// firing): in the task that awaits the run with `value()`, else on `queue`.
    func process(run: RunNumber, on queue: DispatchQueue, _ work: @escaping @Sendable () -> Void) {
        if case .awaitingTask(let inbox)? = storage.withLock({ $0.delivery(of: run) }), inbox.post(work) { return }
        queue.async(execute: work)
    }

    /// Runs `work`, processing work of `run` that may run where it is (a timer's firing, a refresh's end):
    /// in the task that awaits the run with `value()`, else at once.
    func process(run: RunNumber, _ work: @escaping @Sendable () -> Void) {
        if case .awaitingTask(let inbox)? = storage.withLock({ $0.delivery(of: run) }), inbox.post(work) { return }
        work()
    }

    /// Delivers `event`, a user-visible event of `run` (a progress report, streamed elements): in the task
    /// that awaits the run, on the run's own queue, or on `callbackQueue` for a run started with `start()`.
    /// Dropped when the awaiting task already has the run's result: nothing follows an ending.
    func deliverEvent(
        of run: RunNumber, via target: RunDelivery?, queue: DispatchQueue, _ event: @escaping @Sendable () -> Void
    ) {
        switch target {
        case .awaitingTask(let inbox)?: _ = inbox.post(event)
        case .ownQueue(let own)?: own.async(execute: event)
        case nil: queue.async(execute: event)
        }
    }

    /// Cancels a running request: it ends with `ConnectionError.cancelled` on the failure path.
    /// Returns at once, whatever the transfer is doing. A no-op when the request is not running.
    public func cancel() {
        let (action, client) = storage.withLock { state in
            let action = state.lifecycle.handle(.cancel)
            if case .endRun = action { state.noteEnding() }
            return (action, state.client)
        }
        guard case .endRun(let closing) = action else { return }
        closeRun(closing, commit: nil, client: client)
    }

    /// The client of the current (or last) run.
    var runClient: ConnectionClient { storage.withLock { $0.client } }

    // MARK: - Attempts and transfers

    /// Builds and sends the current attempt of `run` (the machine already counted it), through the run's
    /// pipeline: the middleware, ConnectionKit's checks, then the built-in stages; the first of them that
    /// answers stands for the network, and those after it never see the attempt.
    func beginAttempt(run: RunNumber, pipeline: RunPipeline) {
        pipeline.attemptStarted()
        var request: URLRequest
        let answer: StageAnswer?
        do {
            (request, answer) = try prepareRequest(through: pipeline)
        } catch {
            finish(run: run, outcome: .failure(contextualize(error, as: { .invalidRequest(reason: "\($0)") })))
            return
        }
        storage.withLock { $0.attemptRequest = request }
        if let answer {
            answerWithoutNetwork(answer.response, body: answer.body, request: request, run: run)
            return
        }
        beginTransfer(run: run, request: request)
    }

    /// Calls `makeURLRequest()`, then the run's middleware, ConnectionKit's checks and the built-in stages of
    /// `pipeline`. Returns the request, and the answer a middleware or a stage gave instead of the network.
    private func prepareRequest(through pipeline: RunPipeline) throws -> (URLRequest, StageAnswer?) {
        var request = try makeURLRequest()
        if let answer = try prepareThroughMiddleware(&request) { return (request, answer) }
        try checkBeforeSending(&request)
        let answer = try pipeline.prepareAttempt(&request, owner: self)
        return (request, answer)
    }

    /// ConnectionKit's checks of a request about to be sent (a URL it can send to, no body on a `GET`, the
    /// timeout) and of the class's file destination; the debug views' request passes them too.
    func checkBeforeSending(_ request: inout URLRequest) throws {
        try RequestChecks.check(&request, timeoutInterval: timeoutInterval, secretQueryItems: secretQueryItems)
        try checkFileDestination()
    }

    /// Sends `request` as the next transfer of `run` (a new attempt or a redirect hop), once its method
    /// and headers pass the wire check: the last word on whatever `makeURLRequest()` returned.
    func beginTransfer(run: RunNumber, request: URLRequest) {
        var request = request
        let fileTarget: FileTarget?
        let prepared: any PreparedTransfer
        do {
            fileTarget = try makeFileTarget(resuming: &request)
            try WireValidation.check(request, hook: "makeURLRequest()")
            prepared = try prepareTransfer(request, run: run, savingToFile: fileTarget != nil)
        } catch let error as ConnectionError {
            finish(run: run, outcome: .failure(contextualize(error)))
            return
        } catch {
            // Not retried: a file planted beside the destination stays there until someone removes it.
            finish(run: run, outcome: .failure(contextualize(error, as: { .fileSystem(underlying: $0) })))
            return
        }
        guard let number = claimTransfer(run: run, sending: request) else { return }
        runClient.notify(.willSend(request), for: self)
        let receiver = TransferContext(request: self, transfer: number, fileTarget: fileTarget)
        let handle = prepared.start(receiver: receiver)
        let transfer = ActiveTransfer(handle: handle, context: receiver)
        let stored = storage.withLock { $0.lifecycle.handle(.transferCreated(number, transfer)) }
        if case .abandonTransfer(let late) = stored {
            // Cancelled (or timed out) while the transfer was being created.
            late.abandon()
            return
        }
        armIdleTimer(for: number)
    }

    /// Hands `request` to the class's transport with what the class asks of the transfer (its body's
    /// file, its lane, its proxy and TLS configuration): the transport readies it, or refuses before
    /// anything is sent.
    private func prepareTransfer(
        _ request: URLRequest, run: RunNumber, savingToFile: Bool
    ) throws(ConnectionError) -> any PreparedTransfer {
        var options = TransferOptions()
        options.bodyFile = bodyFile(for: request, run: run)
        options.streamedBody = try streamedBodyReader(for: request, run: run)
        options.lane = savingToFile ? .savedToFile : .memory
        options.proxy = try ConnectionTransport.checkedProxy(proxy)
        options.tls = TLSRouting.configuration(of: self, for: request.url)
        return try transport.implementation.prepareTransfer(request, options: options)
    }

    /// Ends transfer `number`: its later events are ignored and its idle timer stops. Returns the
    /// attempt number and the transfer, or `nil` when the transfer no longer counts. `update` runs in
    /// the same step, under the lock, when the claim succeeds.
    func claimTransfer(
        _ number: TransferNumber, update: (inout RequestState) -> Void = { _ in }
    ) -> (attempt: Int, transfer: ActiveTransfer?)? {
        let action = storage.withLock { state in
            let action = state.lifecycle.handle(.completed(number))
            if case .transferEnded = action {
                state.noteAttemptEnded(at: Date())
                update(&state)
            }
            return action
        }
        guard case .transferEnded(let attempt, let transfer, let idleTimer) = action else { return nil }
        idleTimer?.cancel()
        return (attempt, transfer)
    }

    /// A transfer failed (transport error, timeout, bad status, size limit…): retry or end.
    func attemptFailed(_ number: TransferNumber, error: ConnectionError, response: TransportResponse?) {
        guard let claimed = claimTransfer(number) else { return }
        claimed.transfer?.abandon()
        tellMiddleware(.failure(contextualize(error), response: response.map(hookResponse)))
        retryOrFail(run: number.run, attempt: claimed.attempt, error: error, response: response.map(hookResponse))
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
        if let urlError = result.urlError {
            result.kind = .transport(Redaction.scrubbed(urlError, secretQueryItems: secretQueryItems))
        }
        return result
    }

    /// Asks the machine for a transfer of `run` that sends `request` (from the network or, with nothing
    /// sent, from the HTTP cache) and records what it sends; `nil` when the run is not between transfers.
    func claimTransfer(run: RunNumber, sending request: URLRequest) -> TransferNumber? {
        let redacted = Redaction.redactedURL(request.url, secretQueryItems: secretQueryItems)
        let action = storage.withLock { state in
            let action = state.lifecycle.handle(.beginTransfer(run))
            if case .startTransfer = action {
                state.sentRequest = request
                state.sentMethod = request.httpMethod ?? "GET"
                state.redactedURL = redacted
                state.response = nil
                state.resetTransferCounters()
            }
            return action
        }
        guard case .startTransfer(let number) = action else { return nil }
        return number
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
