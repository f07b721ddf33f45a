import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What the lifecycle reports to its observers: once each, outside every lock, in the order it happened
/// for one thread (a cancel on another thread may report the ending before the start).
enum RequestEvent {
    /// A run started, before its first attempt.
    case started
    /// A transfer (an attempt or a redirect hop) is about to be sent.
    case willSend(URLRequest)
    /// The final response's body is complete, before it is validated.
    case receivedBody(CompletedBody)
    /// Bytes moved (rate-limited; reported only while ``ConnectionClient/wantsProgress``). `last`: the
    /// direction's last report (all its expected bytes, or the transfer over), which a listener that fell
    /// behind still gets.
    case progressed(TransferProgress, last: Bool)
    /// An attempt failed; attempt number `attempt` starts after `after` seconds.
    case retried(attempt: Int, after: TimeInterval, error: ConnectionError)
    /// The run ended (after a saved file was committed): the one description of an ending, from which
    /// ``ConnectionState`` and ``ConnectionEvent/Kind`` are derived.
    case ended(RunOutcome)
}

/// Something that watches every request run (compare Alamofire's `EventMonitor`): the registry's
/// history and event streams, the debug output, the network activity count, the offline queue.
/// Features observe requests through this protocol instead of keeping state in the request's core.
protocol RequestObserver: Sendable {
    /// `event` happened to `request`. Called on ConnectionKit's queues or the caller's thread, never
    /// under a lock; must return quickly.
    func request(_ request: AnyConnectionRequest, did event: RequestEvent)

    /// On the callback queue, before `outcome` reaches the request's handlers: `true` takes the ending
    /// over (the completion or failure path is skipped; `value()` callers still get it). An observer that
    /// takes a failure over and cannot keep it delivers it later with
    /// ``AnyConnectionRequest/deliverFailureAfterTakeOver(_:)``. Default `false`.
    func request(_ request: AnyConnectionRequest, takesOver outcome: RunOutcome) -> Bool
}

extension RequestObserver {
    func request(_ request: AnyConnectionRequest, takesOver outcome: RunOutcome) -> Bool { false }
}
