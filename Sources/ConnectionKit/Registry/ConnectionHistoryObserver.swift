/// Records every ending in the registry's history and statistics (when either is on).
struct ConnectionHistoryObserver: RequestObserver {
    func request(_ request: AnyConnectionRequest, did event: RequestEvent) {
        guard case .ended(let outcome) = event else { return }
        ConnectionRegistry.shared.recordEnding(outcome, for: request)
    }
}
