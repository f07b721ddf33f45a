import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A request whose result is an `Output`: subclass it once per endpoint.
///
/// ```swift
/// final class FetchAvatar: ConnectionRequest<Data>, @unchecked Sendable {
///     override var url: URL? { URL(string: "https://api.example.com/avatar.png") }
/// }
/// ```
///
/// The response body goes through ``parseCompletionData(_:response:)`` (on a processing queue)
/// and then ``handleResultObject(_:)``, which calls ``completionHandler``: on
/// ``AnyConnectionRequest/callbackQueue`` for a run started with ``AnyConnectionRequest/start()``, in the
/// awaiting task for ``value()``.
/// - SeeAlso: <doc:endpoints>
open class ConnectionRequest<Output: Sendable>: AnyConnectionRequest, @unchecked Sendable {
    // Safe: no stored state of its own; the completion handler lives in the base class's locked storage.

    /// Creates an idle request.
    public override init() {
        super.init()
    }

    /// Called with the result, where ``handleResultObject(_:)`` runs. Default `nil`.
    public var completionHandler: (@Sendable (Output) -> Void)? {
        get { storage.withLock { $0.completionHandler as? @Sendable (Output) -> Void } }
        set { storage.withLock { $0.completionHandler = newValue } }
    }

    /// Turns the response body into the output. Runs on a processing queue, after
    /// ``AnyConnectionRequest/validate(_:data:)`` passed. Default: the body itself when `Output` is
    /// `Data`; for any other `Output` it must be overridden (otherwise the request fails with a
    /// `parsing` error saying so). A thrown error fails the request as `.parsing`.
    ///
    /// When the body was saved to a file, `data` maps that file rather than copying it.
    open func parseCompletionData(_ data: Data, response: ConnectionResponse) throws -> Output {
        if let data = data as? Output { return data }
        throw ConnectionError(
            .parsing(
                underlying: MissingParser(
                    message: "\(Self.self) must override parseCompletionData(_:response:) to produce \(Output.self)")))
    }

    /// Delivers the result: the default calls ``completionHandler`` (and ends ``value()``). Runs on
    /// ``AnyConnectionRequest/callbackQueue`` for a run started with ``AnyConnectionRequest/start()``, in the
    /// awaiting task for ``value()``. An override may route to
    /// ``AnyConnectionRequest/handleConnectionError(_:)`` instead, e.g. for an API that reports
    /// errors inside a 200 response.
    open func handleResultObject(_ object: Output) {
        let handler = completionHandler
        handler?(object)
        resolveWaiters(with: .success(object))
    }

    /// Starts the request (or joins the run in progress) and returns its result. Cancelling the
    /// awaiting Task cancels the request (it then throws `ConnectionError.cancelled`); when the Task
    /// is already cancelled, the run ends cancelled without sending anything. Throws what the failure
    /// handler would get, after ``AnyConnectionRequest/parseError(_:)``.
    ///
    /// The run it starts ends in this task, on every path: validation, parsing, the result hooks, the
    /// handlers set on the request and its progress reports run here, never waiting on
    /// ``AnyConnectionRequest/callbackQueue``, and nothing of the run is left running or queued when it
    /// returns. A run it joins (started with ``AnyConnectionRequest/start()``) ends where that run delivers.
    public func value() async throws -> Output {
        try await run(on: nil)
    }

    /// As ``value()``, on `client` instead of the class's ``AnyConnectionRequest/client`` (see
    /// ``AnyConnectionRequest/start(on:)``): one request on a service's own client, without a subclass per
    /// client.
    ///
    /// ```swift
    /// let body = try await BasicConnectionRequest(request: URLRequest(url: health)).value(on: Billing.client)
    /// ```
    public func value(on client: ConnectionClient) async throws -> Output {
        try await run(on: client)
    }

    /// Starts a run on `chosen` (or the class's client) for this task, or joins the run in progress, and
    /// returns its result.
    private func run(on chosen: ConnectionClient?) async throws -> Output {
        let client = chosen ?? self.client
        let result = await awaitRun(on: client)
        let output = try result.get()
        guard let output = output as? Output else {
            throw contextualize(ConnectionError(.parsing(underlying: MissingParser(message: "unexpected output type"))))
        }
        return output
    }

    /// Starts a run on `chosen` for this task, or joins the run in progress, and returns its result once
    /// this task ran the run's work and ending.
    private func awaitRun(on chosen: ConnectionClient) async -> Result<any Sendable, any Error> {
        let inbox = RunInbox()
        return await withTaskCancellationHandler {
            // Checked before starting: a cancel after `start` could only race the transfer it began.
            start(
                waiter: { inbox.deliver($0) }, delivery: .awaitingTask(inbox), on: chosen,
                alreadyCancelled: Task.isCancelled)
            // Cancelled between the check and the start: `onCancel` found nothing running to cancel.
            if Task.isCancelled { cancel() }
            // This task runs the run's processing work, its events and its ending itself (a run it joined
            // resolves it from that run's own delivery).
            let processingQueue = storage.withLock { $0.client.processingQueue }
            // What is ready at once (a cache answer, an ending before any transfer) runs where the caller
            // is; what comes later (a transfer's completion, a timer) on the client's processing queue.
            if let ready = inbox.resultIfReady(leftover: { processingQueue.async(execute: $0) }) { return ready }
            return await chosen.whileAwaitingARun { await inbox.result { processingQueue.async(execute: $0) } }
        } onCancel: {
            self.cancel()
        }
    }

    // MARK: - Output plumbing

    override func produceOutput(body: CompletedBody, response: ConnectionResponse) throws -> any Sendable {
        try parseCompletionData(try body.data(), response: response)
    }

    override func deliverOutput(_ output: any Sendable) {
        guard let output = output as? Output else {
            handleConnectionError(
                parseError(
                    contextualize(
                        ConnectionError(.parsing(underlying: MissingParser(message: "unexpected output type"))))))
            return
        }
        handleResultObject(output)
    }
}

/// `parseCompletionData` was not overridden for an output that is not `Data`.
struct MissingParser: Error, LocalizedError, Sendable {
    let message: String
    var errorDescription: String? { message }
}
