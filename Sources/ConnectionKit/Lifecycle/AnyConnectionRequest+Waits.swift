import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension AnyConnectionRequest {
    // MARK: - Retries

    /// Lets a stage take the failed attempt over (an authorization refresh), else asks the middleware and
    /// ``retryDecision(for:attempt:response:)`` and either waits and retries, or ends the run (answered by a
    /// stage instead when one can).
    func retryOrFail(run: RunNumber, attempt: Int, error: ConnectionError, response: ConnectionResponse?) {
        let error = contextualize(error)
        let pipeline = storage.withLock { $0.pipeline }
        if pipeline.takeOver(after: error, run: run, attempt: attempt, owner: self) { return }
        let decision =
            middlewareRetryDecision(for: error, response: response)
            ?? retryDecision(for: error, attempt: attempt, response: response)
        guard case .retry(let delay) = decision else {
            if pipeline.answerAfterFailure(error, response: response, owner: self, run: run) { return }
            finish(run: run, outcome: .failure(error))
            return
        }
        scheduleRetry(run: run, after: delay, error: error, response: response)
    }

    /// Starts the run's next attempt `delay` seconds from now, or ends the run with `error` when it ended
    /// meanwhile or the wait would pass its deadline (answered by a stage instead when one can, the cache
    /// when its policy allows, as when the retry policy gives up).
    func scheduleRetry(
        run: RunNumber, after delay: TimeInterval, error: ConnectionError, response: ConnectionResponse? = nil
    ) {
        let wait = RetryPolicy.sanitizedWait(delay)
        // The handler gets the timer rather than capturing it, so that the two form no cycle.
        let timer = runClient.makeTimer { [weak self] timer in
            timer.cancel()
            guard let self else { return }
            self.process(run: run) { self.resumeAttempts(after: .backoffFired(run)) }
        }
        let firesAt = DispatchTime.now() + wait
        let action = storage.withLock { $0.lifecycle.handle(.retryScheduled(run, firesAt: firesAt, timer: timer)) }
        guard case .scheduleRetry(let next) = action else {
            // The run ended meanwhile, or the wait would pass the deadline.
            timer.cancel()
            let pipeline = storage.withLock { $0.pipeline }
            if pipeline.answerAfterFailure(error, response: response, owner: self, run: run) { return }
            finish(run: run, outcome: .failure(error))
            return
        }
        runClient.notify(.retried(attempt: next, after: wait, error: error), for: self)
        timer.schedule(deadline: firesAt)
    }

    /// A backoff or a stage's wait (an authorization refresh) is over: the next attempt begins, if the run still waits.
    func resumeAttempts(after event: RequestLifecycle.Event) {
        let (action, pipeline) = storage.withLock { state in
            let action = state.lifecycle.handle(event)
            if case .beginAttempt(_, let attempt) = action { state.beginAttempt(attempt) }
            return (action, state.pipeline)
        }
        guard case .beginAttempt(let run, _) = action else { return }
        beginAttempt(run: run, pipeline: pipeline)
    }

    // MARK: - Timers

    /// Fails the transfer when `timeoutInterval` passes without activity; re-arms itself for the rest.
    func armIdleTimer(for number: TransferNumber) {
        let timeout = timeoutInterval
        guard timeout.isFinite else { return }
        // Data does not re-arm the timer: it moves `lastActivity`, and a firing sets the timer again
        // for what is left.
        let timer = runClient.makeTimer { [weak self] timer in
            guard let self else {
                timer.cancel()
                return
            }
            let remaining: Double? = self.storage.withLock { state in
                guard case .proceed = state.lifecycle.handle(.idleTimerFired(number)) else { return nil }
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
                self.process(run: number.run) {
                    self.attemptFailed(number, error: ConnectionError(.timedOut), response: nil)
                }
            }
        }
        let action = storage.withLock { $0.lifecycle.handle(.idleTimerArmed(number, timer)) }
        guard case .proceed = action else {
            timer.cancel()
            return
        }
        timer.schedule(deadline: .now() + timeout)
    }

    /// Ends the run with `.timedOut` when the retry policy's deadline passes, or has a stage answer it then
    /// (``deadlinePassed(run:)``).
    func armDeadline(run: RunNumber, after seconds: TimeInterval) {
        let timer = runClient.makeTimer { [weak self] timer in
            timer.cancel()
            guard let self else { return }
            self.process(run: run) { self.deadlinePassed(run: run) }
        }
        let deadline = DispatchTime.now() + RetryPolicy.sanitizedWait(seconds)
        let action = storage.withLock { $0.lifecycle.handle(.deadlineArmed(run, at: deadline, timer: timer)) }
        guard case .proceed = action else {
            timer.cancel()
            return
        }
        timer.schedule(deadline: deadline)
    }

    /// The retry policy's deadline passed. A run a stage may answer after a failure (the cache under offline
    /// first or `stale-if-error`) stops its transfer or backoff and is answered by it, as when the retry
    /// policy gives up; any other run, or one with nothing stored that may answer, ends `.timedOut`.
    func deadlinePassed(run: RunNumber) {
        let error = contextualize(ConnectionError(.timedOut))
        let pipeline = storage.withLock { $0.pipeline }
        if pipeline.mayAnswerAfterFailure, interruptForAnswer(run: run),
            pipeline.answerAfterFailure(error, response: nil, owner: self, run: run)
        {
            return
        }
        finish(run: run, outcome: .failure(error))
    }

    /// Stops the transfer in flight or the backoff of `run`, so that a stage can answer it; `false` when the
    /// run is not in a state a stage can take over (ended, waiting for a stage).
    private func interruptForAnswer(run: RunNumber) -> Bool {
        let action = storage.withLock { state in
            let action = state.lifecycle.handle(.interruptedForAnswer(run))
            if case .transferEnded = action { state.noteAttemptEnded(at: Date()) }
            return action
        }
        switch action {
        case .transferEnded(_, let transfer, let idleTimer):
            idleTimer?.cancel()
            transfer?.abandon()
            return true
        case .cancelTimer(let timer):
            timer.cancel()
            return true
        case .proceed:
            return true
        default:
            return false
        }
    }
}
