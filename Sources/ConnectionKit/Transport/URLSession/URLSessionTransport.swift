import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The URLSession transport: one session per client (the shared client's serves the whole process),
/// one delegate that routes task events to their receivers by task identifier.
///
/// Built around what URLSession on Linux really does (docs/linux.md):
/// - a Basic `401` hangs forever unless the task-level challenge is answered, so it is cancelled
///   and the 401 response is delivered as is;
/// - `URLSessionTask.cancel()` can block its caller for seconds during a fast transfer, so it runs
///   on a queue of its own and the route is dropped first, so that no late event arrives;
/// - redirects are handed back to the request (307/308 would lose their body, and credentials would
///   cross origins);
/// - fractional timeouts are truncated, so the request enforces its own and URLSession's is pushed past it.
final class URLSessionTransport: Transport {
    static let shared = URLSessionTransport(bodiesToFile: savingToFile)
    /// Bodies saved to file run on a session of their own: a bulk transfer fills its session's
    /// (serial) delegate queue with chunks, and any other request on that session would wait
    /// behind them (seconds, measured, for a small GET during a 1 GiB download). Its delegate queue
    /// holds the chunks back (``BoundedDelegateQueue``), so that a body never piles up in memory.
    static let savingToFile = URLSessionTransport(savesBodiesToFile: true)

    private let session: URLSession
    private let router: SessionRouter
    /// `URLSessionTask.cancel()` may block; it never runs on the caller's thread.
    private let cancelQueue = DispatchQueue(label: "ConnectionKit.cancel", attributes: .concurrent)
    /// The session for bodies saved to a file, when it is another one.
    private let bodiesToFile: URLSessionTransport?
    /// Set by ``shutdown()``: transfers are refused from then on.
    private let stopped = Locked(false)

    /// A client's own pair of sessions (one for bodies saved to a file).
    static func makeOwned() -> URLSessionTransport {
        URLSessionTransport(bodiesToFile: URLSessionTransport(savesBodiesToFile: true))
    }

    /// `savesBodiesToFile`: the session of bodies saved to a file, whose delegate queue holds URLSession
    /// back while it is full (``BoundedDelegateQueue``, on Linux only: Apple's URLSession buffers on its own).
    /// The session for bodies kept in memory gets a ``SerialDelegateQueue`` on Linux.
    init(
        configuration: URLSessionConfiguration = URLSessionTransport.defaultConfiguration(),
        bodiesToFile: URLSessionTransport? = nil, savesBodiesToFile: Bool = false
    ) {
        self.bodiesToFile = bodiesToFile
        let router = SessionRouter()
        let delegateQueue = Self.makeDelegateQueue(savesBodiesToFile: savesBodiesToFile)
        delegateQueue.name = "ConnectionKit.session-delegate"
        delegateQueue.maxConcurrentOperationCount = 1
        self.router = router
        self.session = URLSession(configuration: configuration, delegate: router, delegateQueue: delegateQueue)
    }

    private static func makeDelegateQueue(savesBodiesToFile: Bool) -> OperationQueue {
        #if canImport(FoundationNetworking)
            return savesBodiesToFile ? BoundedDelegateQueue() : SerialDelegateQueue()
        #else
            return OperationQueue()
        #endif
    }

    /// Ephemeral, no cookie jar, no cache, 64 connections per host (Linux defaults to 6),
    /// and URLSession's own timeouts out of the way: requests enforce theirs.
    static func defaultConfiguration() -> URLSessionConfiguration {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = 64
        configuration.timeoutIntervalForRequest = 7 * 24 * 3600
        configuration.timeoutIntervalForResource = 7 * 24 * 3600
        configuration.urlCache = nil
        // No implicit cookie jar: one process-wide session would share one server's cookies with every
        // request class talking to that host (any port), and on Linux a stored cookie replaces a Cookie
        // header the request set itself. Requests send cookies explicitly (see docs/endpoints.md).
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.httpCookieAcceptPolicy = .never
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        return configuration
    }

    /// Cancels the sessions' tasks and invalidates them: its client shut down (and its requests ended).
    /// A transfer asked for afterwards is refused with `clientShutDown`.
    func shutdown() {
        let first = stopped.withLock { stopped in
            defer { stopped = true }
            return !stopped
        }
        guard first else { return }
        session.invalidateAndCancel()
        bodiesToFile?.shutdown()
    }

    /// Whether URLSession reported this session, and the one for bodies saved to a file, invalidated: what
    /// ``shutdown()`` asks for (for tests, which cannot count the threads of a session: they are Foundation's).
    var isInvalidated: Bool {
        router.invalidated.withLock { $0 } && (bodiesToFile?.isInvalidated ?? true)
    }

    /// Readies a transfer on this session, or on its session for bodies saved to a file. Refuses a proxy
    /// chosen per class and TLS settings beyond the default: URLSession cannot honour either per request
    /// (``refusal(of:)``); and every transfer once its client shut it down.
    func prepareTransfer(_ request: URLRequest, options: TransferOptions) throws(ConnectionError)
        -> any PreparedTransfer
    {
        if let refusal = Self.refusal(of: options) { throw refusal }
        guard !stopped.withLock({ $0 }) else { throw ConnectionError(.clientShutDown) }
        let lane = options.lane == .savedToFile ? (bodiesToFile ?? self) : self
        return SessionPreparedTransfer(transport: lane, request: request, bodyFile: options.bodyFile)
    }

    /// Creates and resumes the task of a prepared transfer (refused when the client shut down since).
    fileprivate func start(_ request: URLRequest, bodyFile: URL?, receiver: any TransferReceiver) -> any TransferHandle
    {
        guard !stopped.withLock({ $0 }) else { return RefusedTransfer.start(receiver) }
        var request = request
        request.timeoutInterval = Self.backstopTimeout(after: request.timeoutInterval)
        let task: URLSessionTask
        if let bodyFile {
            // Streamed from disk in pieces by URLSession, with upload progress and a Content-Length.
            task = session.uploadTask(with: request, fromFile: bodyFile)
        } else if let body = request.httpBody, !body.isEmpty {
            // An upload task reports upload progress for its body.
            var bodyless = request
            bodyless.httpBody = nil
            task = session.uploadTask(with: bodyless, from: body)
        } else {
            task = session.dataTask(with: request)
        }
        router.add(task, receiver: receiver)
        task.resume()
        return SessionTransferHandle(task: task, router: router, cancelQueue: cancelQueue)
    }

    /// URLSession's own idle timer, pushed past the request's (`idleTimeout`, which the request enforces
    /// itself): on Linux it counts whole seconds only and fires at once below 1 s.
    static func backstopTimeout(after idleTimeout: TimeInterval) -> TimeInterval {
        idleTimeout.isFinite && idleTimeout > 0 ? idleTimeout.rounded(.up) + 5 : 7 * 24 * 3600
    }
}

/// A transfer URLSession accepted: its task is created when it starts.
private struct SessionPreparedTransfer: PreparedTransfer {
    let transport: URLSessionTransport
    let request: URLRequest
    let bodyFile: URL?

    func start(receiver: any TransferReceiver) -> any TransferHandle {
        transport.start(request, bodyFile: bodyFile, receiver: receiver)
    }
}

/// Cancels one URLSession task without blocking the caller.
private struct SessionTransferHandle: TransferHandle {
    let task: URLSessionTask
    let router: SessionRouter
    let cancelQueue: DispatchQueue

    func cancel() {
        guard router.remove(task) != nil else { return }
        let task = self.task
        cancelQueue.async { task.cancel() }
    }

    /// URLSession reads a task's body ahead of its delegate, and on Linux `suspend()` and `resume()`
    /// restart the transfer from byte 0 (LINUX.md): a `.wait` cannot be honoured.
    var followsDemand: Bool { false }

    func demandMore() {}
}

/// The session delegate: routes each task's events to its receiver.
private final class SessionRouter: NSObject, URLSessionDataDelegate, Sendable {
    private struct Route {
        let receiver: any TransferReceiver
        /// Set when a Basic/Digest challenge was cancelled to escape Linux's 401 hang.
        var cancelledChallenge = false
        /// The response handed to the receiver, handed again with the completion (its head read once).
        var response: TransportResponse?
    }

    private let routes = Locked([Int: Route]())
    /// Set when URLSession reported the session invalidated: it let go of its tasks and its delegate.
    let invalidated = Locked(false)

    func add(_ task: URLSessionTask, receiver: any TransferReceiver) {
        routes.withLock { $0[task.taskIdentifier] = Route(receiver: receiver) }
    }

    @discardableResult
    func remove(_ task: URLSessionTask) -> (any TransferReceiver)? {
        routes.withLock { $0.removeValue(forKey: task.taskIdentifier)?.receiver }
    }

    private func receiver(for task: URLSessionTask) -> (any TransferReceiver)? {
        routes.withLock { $0[task.taskIdentifier]?.receiver }
    }

    // MARK: - URLSessionDelegate

    func urlSession(_ session: URLSession, didBecomeInvalidWithError error: (any Error)?) {
        invalidated.withLock { $0 = true }
    }

    // MARK: - URLSessionDataDelegate

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        // FoundationNetworking hands over every interim `1xx` head as a response; none is the answer,
        // and each would restart the request's idle timeout (a stream of `100 Continue` kept a request
        // alive forever). libcurl's transport skips them too.
        if let response = response as? HTTPURLResponse, (100..<200).contains(response.statusCode),
            response.statusCode != 101
        {
            completionHandler(.allow)
            return
        }
        if let response = response as? HTTPURLResponse {
            let received = TransportResponse(response)
            let receiver = routes.withLock { routes -> (any TransferReceiver)? in
                routes[dataTask.taskIdentifier]?.response = received
                return routes[dataTask.taskIdentifier]?.receiver
            }
            receiver?.transferDidReceive(response: received)
        }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        // The demand is not followed (`followsDemand` is false): the receiver bounds its own buffer.
        _ = receiver(for: dataTask)?.transferDidReceive(data: data)
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64, totalBytesSent: Int64,
        totalBytesExpectedToSend: Int64
    ) {
        receiver(for: task)?.transferDidSend(totalBytes: totalBytesSent, expectedBytes: totalBytesExpectedToSend)
    }

    // Apple platforms deliver these before the completion; FoundationNetworking never does (docs/linux.md).
    func urlSession(_ session: URLSession, task: URLSessionTask, didFinishCollecting metrics: URLSessionTaskMetrics) {
        receiver(for: task)?.transferDidCollect(metrics: TransferMetrics(metrics))
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let route = routes.withLock { $0.removeValue(forKey: task.taskIdentifier) }
        guard let route else { return }
        let response = (task.response as? HTTPURLResponse).map { final in
            route.response.flatMap { $0.httpResponse === final ? $0 : nil } ?? TransportResponse(final)
        }
        if route.cancelledChallenge, let response, (error as? URLError)?.code == .cancelled {
            // We cancelled the challenge ourselves: what the caller gets is the 401 (its body is lost).
            route.receiver.transferDidComplete(response: response, error: nil)
        } else {
            let normalized = error.map { TransportErrorMapping.normalized($0, responseArrived: response != nil) }
            route.receiver.transferDidComplete(response: response, error: normalized)
        }
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        // The request follows redirects itself (origin checks, 307/308 bodies, its own limit).
        // Linux traps ("Received callback for HTTP redirection, but we're not waiting for it") when
        // the task is cancelled between this callback and the completion it enqueues on the task's
        // queue. Under the routes lock: a task we already cancelled gets no answer (its cancel ends
        // it), and a cancel that comes later is enqueued after the answer.
        routes.withLock { routes in
            if routes[task.taskIdentifier] != nil { completionHandler(nil) }
        }
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        #if canImport(FoundationNetworking)
            // Linux: default handling of a Basic 401 hangs forever (server trust is never challenged
            // there); cancel and deliver the 401 response instead.
            // Answered under the routes lock for the same reason as redirects.
            routes.withLock { routes in
                guard routes[task.taskIdentifier] != nil else { return }
                routes[task.taskIdentifier]?.cancelledChallenge = true
                completionHandler(.cancelAuthenticationChallenge, nil)
            }
        #else
            completionHandler(.performDefaultHandling, nil)
        #endif
    }
}
