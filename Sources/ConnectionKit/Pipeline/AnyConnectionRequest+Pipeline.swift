import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension AnyConnectionRequest {
    // MARK: - Answers without the network

    /// Answers `run` with `response` and `body` through the steps a response from the network takes (the
    /// response head, the body, validation, parsing, the ending), so that hooks, handlers, `value()`, the
    /// registry and the history see it once, as they see any answer. Nothing is sent: the stage that answers
    /// (the HTTP cache, a middleware) stands for the network. Returns `false` when the run is not between
    /// transfers (it ended, or waits for a retry): then nothing was done.
    @discardableResult
    func answerWithoutNetwork(_ response: TransportResponse, body: Data, request: URLRequest, run: RunNumber) -> Bool {
        guard let number = claimTransfer(run: run, sending: request) else { return false }
        // Off the caller's thread, as a transport's completion is: `start()` returns at once.
        process(run: run, on: runClient.processingQueue) { self.deliverAnswer(response, body: body, transfer: number) }
        return true
    }

    /// An answer's head and body, handed over as a transport hands over a response.
    private func deliverAnswer(_ response: TransportResponse, body: Data, transfer: TransferNumber) {
        switch transferDidReceive(response: response, transfer: transfer, fileTarget: nil) {
        case .memory(let limit, _):
            let sink = MemorySink(limit: limit, expectedLength: Int64(body.count))
            do {
                _ = try sink.append(body)
            } catch {
                attemptFailed(transfer, error: contextualize(error), response: response)
                return
            }
            transferDidProgress(
                .download, bytes: Int64(body.count), total: nil, transfer: transfer, interval: progressInterval)
            transferDidComplete(transfer, response: response, error: nil, sink: sink)
        case .discard:
            // A redirect: followed as one from the network is.
            transferDidComplete(transfer, response: response, error: nil, sink: nil)
        default:
            // The run moved on (cancelled, timed out) or the head was refused: already ended.
            return
        }
    }

    // MARK: - Middleware

    /// The run's middleware, the context they share for the current attempt, and the position of the one that
    /// answered it; `nil`, in one lock and nothing built, when the run has no middleware.
    private func middlewareBase() -> (pipeline: RunPipeline, base: RunPipeline.Base, answeredBy: Int?)? {
        storage.withLock { state in
            guard !state.pipeline.isEmpty else { return nil }
            let base = RunPipeline.Base(
                request: self, client: state.client, runIdentifier: state.identifier, attempt: state.lifecycle.attempt)
            return (state.pipeline, base, state.answeringMiddleware)
        }
    }

    /// Runs the middleware of the run on the attempt's request; returns the answer one of them gave instead
    /// of the network, as a response, or `nil` when the request goes on to the built-in stages.
    func prepareThroughMiddleware(
        _ request: inout URLRequest
    ) throws(ConnectionError) -> StageAnswer? {
        guard let (pipeline, base, _) = middlewareBase(),
            let (index, answer) = try pipeline.prepare(&request, base: base)
        else { return nil }
        // An answer stands for a body kept in memory: a file or a stream expects the transport's bytes.
        guard fileDestination == nil, !isStreaming else {
            let reason =
                "its answer was given to a request that saves to a file or streams; answers are for requests "
                + "whose body stays in memory"
            throw ConnectionError(.middleware(name: pipeline.middleware[index].name, underlying: nil, reason: reason))
        }
        storage.withLock { $0.answeringMiddleware = index }
        let lines = answer.headerFields.map { ResponseHeaderField(name: $0.name, value: $0.value) }
        let response = TransportResponse(
            url: request.url, statusCode: answer.statusCode, httpVersion: "HTTP/1.1", head: ResponseHead(lines: lines),
            source: .middleware)
        return StageAnswer(response: response, body: answer.body)
    }

    /// Tells the run's middleware (those above the one that answered, if one did) how the attempt ended.
    func tellMiddleware(_ outcome: @autoclosure () -> MiddlewareOutcome) {
        guard let (pipeline, base, answeredBy) = middlewareBase() else { return }
        pipeline.received(outcome(), before: answeredBy, base: base)
    }

    /// The run's middleware's decision about retrying after `error`, if one of them gives one.
    func middlewareRetryDecision(for error: ConnectionError, response: ConnectionResponse?) -> RetryDecision? {
        guard let (pipeline, base, _) = middlewareBase() else { return nil }
        return pipeline.retryDecision(for: error, response: response, base: base)
    }
}
