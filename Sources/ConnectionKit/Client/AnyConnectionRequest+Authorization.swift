import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension AnyConnectionRequest {
    // MARK: - Authorization refresh

    /// After a `401`, when the class has an ``authorizationRefresher`` and this run has not retried after a
    /// refresh yet: waits for the (single-flight) refresh, then starts the next attempt, which applies
    /// ``authorization`` anew; a failed refresh ends the run with ``AuthorizationRefreshError``.
    /// Returns whether it took over the failed attempt.
    func refreshAuthorization(run: RunNumber, attempt: Int, after error: ConnectionError) -> Bool {
        guard error.statusCode == 401, let refresher = authorizationRefresher else { return false }
        let sentWith: UInt64?? = storage.withLock { state in
            guard case .refresh = state.lifecycle.handle(.refreshStarted(run)) else { return nil }
            return .some(state.authorizationGeneration)
        }
        guard let sentWith else { return false }
        runClient.notify(.retried(attempt: attempt + 1, after: 0, error: error), for: self)
        refresher.refresh(after: sentWith ?? refresher.generation) { [weak self] result in
            // Off the refresher's task (the next attempt may assemble a large multipart body) and off the
            // caller's stack (the outcome may be known at once).
            guard let self else { return }
            process(run: run, on: runClient.processingQueue) {
                switch result {
                case .success:
                    self.resumeAttempts(after: .refreshEnded(run))
                case .failure(let failure):
                    let error = ConnectionError(
                        .other(underlying: AuthorizationRefreshError(underlyingError: failure)))
                    self.finish(run: run, outcome: .failure(error))
                }
            }
        }
        return true
    }
}
