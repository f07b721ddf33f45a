import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension OfflineQueue {
    // MARK: - The delivery loop (runs on `worker`)

    /// Asks the worker to fill the window of attempts.
    func kick() {
        worker.async { [weak self] in self?.attemptWindow() }
    }

    /// Starts an attempt for each operation of the window (the first ``Configuration/maximumInFlight``
    /// pending ones) that is not in flight, unless a retry is waiting or the queue is suspended or closed.
    private func attemptWindow() {
        while attemptNext() {}
    }

    /// Starts one attempt; returns whether the caller should look for another.
    private func attemptNext() -> Bool {
        let width = max(1, configuration.maximumInFlight)
        let next: (QueuedOperation, (@Sendable () -> AnyConnectionRequest)?, AnyConnectionRequest?)? =
            state.withLock { state in
                guard state.delivery.mayAttempt,
                    let head = state.pending.prefix(width).first(where: { state.inFlight[$0.id] == nil })
                else { return nil }
                return (head, state.factories[head.typeName], state.liveTemplates[head.typeName])
            }
        guard let (head, factory, liveTemplate) = next else { return false }
        let candidates = [factory?(), liveTemplate].compactMap { $0 }
        guard !candidates.isEmpty else {
            waitForRegistration(of: head)
            return false
        }
        // The class's credentials go only where the class itself sends: an entry planted in the folder, or
        // edited, must not carry them to another origin.
        guard let template = candidates.first(where: { RedirectRule.isSameOrigin($0.url, head.url) }) else {
            let expected = candidates.first?.url.map(Self.origin) ?? "no URL"
            deadLetter(
                head,
                error: ConnectionError(
                    .invalidRequest(
                        reason: "its URL's origin \(Self.origin(head.url)) is not the origin \(head.typeName) builds "
                            + "(\(expected)); not sent, so that the class's credentials stay with its own origin"),
                    requestTypeName: head.typeName))
            return true
        }
        var attempted = head
        attempted.attempts += 1
        startAttempt(attempted, template: template)
        return true
    }

    /// No class is registered for `head`'s type (yet): says so once, and looks again later.
    private func waitForRegistration(of head: QueuedOperation) {
        let misses = state.withLock { state -> Int in
            state.unregisteredMisses[head.typeName, default: 0] += 1
            return state.unregisteredMisses[head.typeName, default: 0]
        }
        if misses == 2 {
            configuration.log(
                "no request class is registered as \(head.typeName); its operations wait until "
                    + "`register(\(head.typeName).self) { ... }` is called")
        }
        // Ignored while attempts are in flight: their endings look again.
        step(.wait(makeRetryTimer()), wait: configuration.offlineRetryInterval, onWorker: true)
    }

    /// Records the attempt, reads the body and starts `operation` as a request built from `template`, unless
    /// the queue was closed meanwhile or the operation left it.
    private func startAttempt(_ operation: QueuedOperation, template: AnyConnectionRequest) {
        // Counted before sending (written, synced with the next commit), so that a crash during the attempt
        // still counts it against the limit.
        do {
            try journal.recordAttempt(operation.sequence, attempts: operation.attempts)
        } catch {
            configuration.log("could not record attempt \(operation.attempts) of \(operation.id): \(error)")
        }
        let body: Data?
        do {
            body = try store.readBody(of: operation)
        } catch {
            deadLetter(
                operation,
                error: ConnectionError(
                    .fileSystem(underlying: POSIXFileError.offlineQueue(error)), requestTypeName: operation.typeName))
            return
        }
        let request = QueuedOperationRequest(operation: operation, template: template, body: body)
        request.callbackQueue = worker
        request.completionHandler = { [weak self] data in
            self?.attemptSucceeded(operation, body: data)
        }
        request.failureHandler = { [weak self, weak request] error in
            self?.attemptFailed(operation, error: error, response: request?.responseHead)
        }
        // Asked of the delivery machine again, with the request registered in the same step: `close()` (or
        // `suspend()`) may have run since the first check, and `close()` cancels only what is in flight; a
        // request started after it would reach the server from a closed queue.
        let current = state.withLock { state -> Bool in
            guard let index = state.pending.firstIndex(where: { $0.id == operation.id }),
                state.delivery.handle(.attemptStarting).start
            else { return false }
            state.pending[index] = operation
            state.inFlight[operation.id] = request
            return true
        }
        guard current else { return }
        request.start()
    }

    /// `scheme://host:port` of `url`, for messages (never a path, query or credential).
    static func origin(_ url: URL) -> String {
        let scheme = url.scheme ?? "?"
        let port = url.port.map { ":\($0)" } ?? ""
        return "\(scheme)://\(url.host ?? "")\(port)"
    }

    private func attemptSucceeded(_ operation: QueuedOperation, body: Data) {
        let stillQueued = state.withLock { state -> Bool in
            state.inFlight[operation.id] = nil
            state.lastAttemptReachedServer = true
            state.reportedReachable = nil
            state.consecutiveFailures = 0
            return state.removePending(operation)
        }
        if stillQueued {
            do {
                // Written at once (a kill keeps it), synced with the next commit: lost only to a power cut,
                // which re-sends the operation with the same key.
                try journal.resolve([operation.sequence], sync: false)
                store.removeBody(named: operation.bodyFileName)
            } catch {
                // Left on disk, it is delivered again by the next process: at least once, same key.
                configuration.log("delivered \(operation.id) but could not record it: \(error)")
            }
            let handler = state.withLock { $0.deliveredHandler }
            if let handler {
                configuration.callbackQueue.async { handler(operation, body) }
            }
        }
        step(.attemptEnded, onWorker: true)
    }

    private func attemptFailed(_ operation: QueuedOperation, error: any Error, response: ConnectionResponse?) {
        let endedAt = Date()
        let error = (error as? ConnectionError) ?? ConnectionError(.other(underlying: error))
        let unreachable = Self.isUnreachable(error, responseArrived: response != nil)
        let report = { (delay: TimeInterval?) in
            guard let handler = self.state.withLock({ $0.failedAttemptHandler }) else { return }
            let attempt = FailedAttempt(
                operation: operation, error: error, reachedServer: !unreachable, endedAt: endedAt, retryDelay: delay)
            self.configuration.callbackQueue.async { handler(attempt) }
        }
        let stillQueued = state.withLock { state -> Bool in
            state.inFlight[operation.id] = nil
            state.consecutiveFailures += 1
            if !error.isCancelled {
                state.lastAttemptReachedServer = !unreachable
                state.reportedReachable = nil
            }
            return state.pending.contains { $0.id == operation.id }
        }
        guard stillQueued else {
            step(.attemptEnded, onWorker: true)
            return
        }
        if let reason = giveUpReason(operation, error: error) {
            report(nil)
            deadLetter(operation, error: error, note: reason.isEmpty ? nil : reason)
            step(.attemptEnded, onWorker: true)
            return
        }
        let failures = state.withLock { $0.consecutiveFailures }
        var wait = unreachable ? configuration.offlineRetryInterval : configuration.onlineRetryInterval
        if let backoff = configuration.backoff {
            wait = max(wait, backoff.retryAfterDelay(from: response) ?? backoff.backoff(beforeRetry: failures))
        }
        // Reported after scheduling, with the wait actually scheduled: a handler that reacts (e.g. calls
        // `setReachable(true)`) then always finds the wait to cut short.
        let actions = step(.attemptFailed(retryAfter: makeRetryTimer()), wait: wait, onWorker: true)
        report(actions.arm != nil ? wait : 0)
    }

    /// Why `operation` is not retried after `error` (empty: the error says it all), or `nil` to retry: a 4xx
    /// other than 408 and 429, an error no retry can fix, or past the attempt or age limit.
    private func giveUpReason(_ operation: QueuedOperation, error: ConnectionError) -> String? {
        if let status = error.statusCode, (400..<500).contains(status), status != 408, status != 429 { return "" }
        switch error.kind {
        case .transport, .timedOut, .cancelled, .unacceptableStatusCode: break
        default: return ""
        }
        if let limit = configuration.maximumAttempts, operation.attempts >= limit {
            return "after \(operation.attempts) attempts"
        }
        if let age = configuration.maximumAge, Date().timeIntervalSince(operation.enqueuedAt) >= age {
            return "older than \(age) s"
        }
        return nil
    }

    private func deadLetter(_ operation: QueuedOperation, error: ConnectionError, note: String? = nil) {
        let reason = [error.description, note].compactMap { $0 }.joined(separator: " ")
        let letter = DeadLetter(operation: operation, reason: reason, statusCode: error.statusCode, date: Date())
        do {
            // The dead letter first, then the journal: a crash in between leaves both, and loading finishes
            // the move. When the letter cannot be written, the entry stays in the journal for the next process.
            try store.writeDead(letter)
            try journal.resolve([operation.sequence], sync: false)
        } catch {
            configuration.log("could not move \(operation.id) to the dead letters: \(error)")
        }
        let handler = state.withLock { state -> (@Sendable (DeadLetter) -> Void)? in
            _ = state.removePending(operation)
            state.deadLetters.append(letter)
            return state.deadLetterHandler
        }
        if let handler {
            configuration.callbackQueue.async { handler(letter) }
        }
    }

    /// Steps the delivery machine with `event` and performs its actions: cancels the timer it lets go, arms
    /// the one it keeps for `wait` seconds, and fills the window (in place on the worker, else through
    /// ``kick()``). Returns the actions.
    @discardableResult
    func step(
        _ event: OfflineDeliveryMachine<SharedTimer>.Event, wait: TimeInterval = 0, onWorker: Bool = false
    ) -> OfflineDeliveryMachine<SharedTimer>.Actions {
        let actions = state.withLock { $0.delivery.handle(event) }
        actions.cancel?.cancel()
        actions.arm?.schedule(deadline: .now() + max(0, wait))
        if actions.attempt {
            if onWorker { attemptWindow() } else { kick() }
        }
        return actions
    }

    /// A retry timer, not armed: when it fires, the worker hears of it (and ignores it if it was replaced).
    func makeRetryTimer() -> SharedTimer {
        SharedTimers.shared.makeTimer { [weak self] timer in
            timer.cancel()
            guard let self else { return }
            self.worker.async { self.step(.timerFired(timer), onWorker: true) }
        }
    }
}
