import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension OfflineQueue {
    // MARK: - The delivery loop (runs on `worker`)

    /// Asks the worker to attempt the head of the queue if nothing is in flight or waiting.
    func kick() {
        worker.async { [weak self] in self?.attemptHead() }
    }

    /// Sends the head of the queue, unless an attempt is in flight, a retry is waiting, or the queue is
    /// suspended or empty.
    private func attemptHead() {
        let next: (QueuedOperation, (@Sendable () -> AnyConnectionRequest)?, AnyConnectionRequest?)? =
            state.withLock { state in
                guard !state.isSuspended, !state.isClosed, state.inFlight == nil, state.retryTimer == nil,
                    let head = state.pending.first
                else { return nil }
                return (head, state.factories[head.typeName], state.liveTemplates[head.typeName])
            }
        guard let (head, factory, liveTemplate) = next else { return }
        guard let template = factory?() ?? liveTemplate else {
            let misses = state.withLock { state -> Int in
                state.unregisteredMisses[head.typeName, default: 0] += 1
                return state.unregisteredMisses[head.typeName, default: 0]
            }
            if misses == 2 {
                configuration.log(
                    "no request class is registered as \(head.typeName); its operations wait until "
                        + "`register(\(head.typeName).self) { ... }` is called")
            }
            scheduleRetry(after: configuration.offlineRetryInterval)
            return
        }
        var attempted = head
        attempted.attempts += 1
        let operation = attempted
        // Counted before sending, so that a crash during the attempt still counts it against the limit.
        do {
            try store.writePending(operation)
        } catch {
            configuration.log("could not record attempt \(operation.attempts) of \(operation.id): \(error)")
        }
        let body: Data?
        do {
            body = try store.readBody(of: operation)
        } catch {
            deadLetter(
                operation, error: ConnectionError(.fileSystem(underlying: error), requestTypeName: operation.typeName))
            return
        }
        let request = QueuedOperationRequest(operation: operation, template: template, body: body)
        request.callbackQueue = worker
        request.completionHandler = { [weak self] data in
            self?.attemptSucceeded(operation, body: data)
        }
        request.failureHandler = { [weak self, weak request] error in
            self?.attemptFailed(operation, error: error, response: request?.urlResponse)
        }
        let current = state.withLock { state -> Bool in
            guard state.pending.first?.id == operation.id else { return false }
            state.pending[0] = operation
            state.inFlight = request
            state.retryImmediately = false
            return true
        }
        guard current else { return }
        request.start()
    }

    private func attemptSucceeded(_ operation: QueuedOperation, body: Data) {
        let stillQueued = state.withLock { state -> Bool in
            state.inFlight = nil
            state.lastAttemptReachedServer = true
            state.reportedReachable = nil
            state.consecutiveFailures = 0
            return state.removeHead(operation)
        }
        if stillQueued {
            do {
                try store.removePending(operation)
            } catch {
                // Left on disk, it is delivered again by the next process: at least once, same key.
                configuration.log("delivered \(operation.id) but could not remove its file: \(error)")
            }
            let handler = state.withLock { $0.deliveredHandler }
            if let handler {
                configuration.callbackQueue.async { handler(operation, body) }
            }
        }
        attemptHead()
    }

    private func attemptFailed(_ operation: QueuedOperation, error: any Error, response: HTTPURLResponse?) {
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
            state.inFlight = nil
            state.consecutiveFailures += 1
            if !error.isCancelled {
                state.lastAttemptReachedServer = !unreachable
                state.reportedReachable = nil
            }
            return state.pending.first?.id == operation.id
        }
        guard stillQueued else {
            attemptHead()
            return
        }
        if let status = error.statusCode, (400..<500).contains(status), status != 408, status != 429 {
            report(nil)
            deadLetter(operation, error: error)
            return
        }
        let retryable: Bool
        switch error.kind {
        case .transport, .timedOut, .cancelled, .unacceptableStatusCode: retryable = true
        case .invalidRequest, .parsing, .fileSystem, .responseTooLarge, .tooManyRedirects, .streamBufferFull, .other:
            retryable = false
        }
        if !retryable {
            report(nil)
            deadLetter(operation, error: error)
            return
        }
        if let limit = configuration.maximumAttempts, operation.attempts >= limit {
            report(nil)
            deadLetter(operation, error: error, note: "after \(operation.attempts) attempts")
            return
        }
        if let age = configuration.maximumAge, Date().timeIntervalSince(operation.enqueuedAt) >= age {
            report(nil)
            deadLetter(operation, error: error, note: "older than \(age) s")
            return
        }
        let (failures, immediately) = state.withLock { state in
            defer { state.retryImmediately = false }
            return (state.consecutiveFailures, state.retryImmediately)
        }
        var wait = unreachable ? configuration.offlineRetryInterval : configuration.onlineRetryInterval
        if let backoff = configuration.backoff {
            wait = max(wait, backoff.retryAfterDelay(from: response) ?? backoff.backoff(beforeRetry: failures))
        }
        if immediately {
            // The app said the network is back while this attempt was under way.
            wait = 0
        }
        report(wait)
        scheduleRetry(after: wait)
    }

    private func deadLetter(_ operation: QueuedOperation, error: ConnectionError, note: String? = nil) {
        let reason = [error.description, note].compactMap { $0 }.joined(separator: " ")
        let letter = DeadLetter(operation: operation, reason: reason, statusCode: error.statusCode, date: Date())
        do {
            try store.moveToDead(letter)
        } catch {
            configuration.log("could not move \(operation.id) to the dead letters: \(error)")
        }
        let handler = state.withLock { state -> (@Sendable (DeadLetter) -> Void)? in
            _ = state.removeHead(operation)
            state.deadLetters.append(letter)
            return state.deadLetterHandler
        }
        if let handler {
            configuration.callbackQueue.async { handler(letter) }
        }
        attemptHead()
    }

    /// Waits `seconds`, then attempts the head again (``attemptNow()`` cuts the wait short).
    func scheduleRetry(after seconds: TimeInterval) {
        let timer = DispatchSource.makeTimerSource(queue: worker)
        let generation = state.withLock { state -> UInt64 in
            state.timerGeneration &+= 1
            state.retryTimer = timer
            return state.timerGeneration
        }
        timer.setEventHandler { [weak self] in
            timer.cancel()
            guard let self else { return }
            let current = self.state.withLock { state -> Bool in
                guard state.timerGeneration == generation else { return false }
                state.retryTimer = nil
                return true
            }
            if current { self.attemptHead() }
        }
        timer.schedule(deadline: .now() + max(0, seconds))
        timer.resume()
    }
}
