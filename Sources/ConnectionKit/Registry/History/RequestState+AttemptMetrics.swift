import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension RequestState {
    /// Opens the metrics of attempt `attempt` at `date`. Called under the request's lock.
    mutating func noteAttemptStarted(_ attempt: Int, at date: Date) {
        attemptMetrics.append(ConnectionAttemptMetrics(attempt: attempt, start: date))
    }

    /// The current attempt's first response head arrived (later redirect hops keep the first).
    mutating func noteResponseStarted(at date: Date) {
        guard let last = attemptMetrics.indices.last, attemptMetrics[last].responseStart == nil else { return }
        attemptMetrics[last].responseStart = date
    }

    /// A transfer of the current attempt ended; the last one (after any redirect hops) counts.
    mutating func noteAttemptEnded(at date: Date) {
        guard let last = attemptMetrics.indices.last else { return }
        attemptMetrics[last].end = date
    }
}

extension AnyConnectionRequest {
    /// The transport reported connection-level timings for `transfer`.
    func transferDidCollect(metrics: TransferMetrics, transfer: TransferNumber) {
        storage.withLock { state in
            guard state.isCurrent(transfer), let last = state.attemptMetrics.indices.last else {
                return
            }
            state.attemptMetrics[last].fill(from: metrics)
        }
    }
}
