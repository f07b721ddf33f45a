import Foundation

/// The offline queue's hold on the requests started through ``OfflineQueue/start(_:onOffline:)``:
/// for the next ending of each, a handler offered the failure first, kept here rather than in the
/// request.
final class OfflineInterception: RequestObserver, Sendable {
    static let shared = OfflineInterception()

    /// Returns `true` when it takes the request over (the failure path is then skipped): the queue stores it
    /// and runs `onOffline`, or delivers the failure itself if it cannot.
    typealias Interceptor = @Sendable (ConnectionError) -> Bool

    private struct Entry {
        weak var request: AnyConnectionRequest?
        let interceptor: Interceptor
    }

    private let entries = Locked([ObjectIdentifier: Entry]())

    /// `interceptor` is offered the failure of `request`'s next ending, on its callback queue.
    func intercept(_ request: AnyConnectionRequest, with interceptor: @escaping Interceptor) {
        entries.withLock { $0[ObjectIdentifier(request)] = Entry(request: request, interceptor: interceptor) }
    }

    func request(_ request: AnyConnectionRequest, did event: RequestEvent) {}

    func request(_ request: AnyConnectionRequest, takesOver outcome: RunOutcome) -> Bool {
        // Forgotten at any ending, as a request that was never intercepted must not inherit it
        // (an identifier is reused once its object is gone, hence the identity check).
        let entry = entries.withLock { $0.removeValue(forKey: ObjectIdentifier(request)) }
        guard let entry, entry.request === request, case .failure(let error) = outcome else { return false }
        return entry.interceptor(error)
    }
}
