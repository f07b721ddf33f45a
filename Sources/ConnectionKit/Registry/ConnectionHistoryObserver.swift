/// Records every ending in its client's registry's history and statistics (when either is on).
struct ConnectionHistoryObserver: RequestObserver {
    let registry: ConnectionRegistry

    func request(_ request: AnyConnectionRequest, did event: RequestEvent) {
        guard case .ended(let outcome) = event else { return }
        registry.recordEnding(outcome, for: request)
    }
}
