import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Writes the debug output (``ConnectionDebug``) of the runs that have it on.
struct DebugOutputObserver: RequestObserver {
    func request(_ request: AnyConnectionRequest, did event: RequestEvent) {
        switch event {
        case .started:
            DebugOutput.begin(request)
        case .progressed:
            return
        case .willSend(let sent):
            DebugOutput.requestSent(sent, by: request)
        case .receivedBody(let body):
            DebugOutput.recordBodyPreview(of: body, for: request)
        case .retried(let attempt, let delay, let error):
            DebugOutput.retried(attempt: attempt, after: delay, error: error, for: request)
        case .ended(let outcome):
            DebugOutput.ended(outcome, for: request)
        }
    }
}
