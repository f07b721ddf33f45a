import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension AnyConnectionRequest {
    // MARK: - Transfer events (from TransferContext)

    /// A response arrived: records it and says where its body goes. Runs on the transport's thread; no
    /// `HTTPURLResponse` is built (``TransportResponse``).
    func transferDidReceive(response: TransportResponse, transfer: TransferNumber, fileTarget: FileTarget?)
        -> SinkChoice
    {
        let isRedirect = followsRedirects && RedirectRule.isRedirect(response)
        let limit = maximumResponseBodySize
        let expected = response.head.expectedBodyLength
        let saved = fileTarget != nil && !isRedirect
        let placement = saved ? fileTarget?.placement(for: ConnectionResponse(response, metrics: nil)) : nil
        var metrics: ConnectionAttemptMetrics?
        var pipeline = RunPipeline.empty
        let current: Bool = storage.withLock { state in
            guard case .proceed = state.lifecycle.handle(.response(transfer)) else { return false }
            defer { (metrics, pipeline) = (state.attemptMetrics.last, state.pipeline) }
            state.response = response
            state.noteResponseStarted(at: Date())
            state.lastActivity = .now()
            state.download.expected = expected
            if case .append(let offset, let total)? = placement {
                // Progress covers the whole file, the part saved by an earlier transfer included.
                state.download.completed = offset
                state.download.expected = total ?? expected.map { $0 + offset }
            }
            return true
        }
        guard current else { return .ignore }
        if let error = headProblem(response.head) {
            attemptFailed(transfer, error: error, response: response)
            return .ignore
        }
        pipeline.received(response, owner: self)
        if isRedirect { return .discard }
        let head = ConnectionResponse(response, metrics: metrics)
        if let fileTarget, let placement, let choice = fileChoice(placement, fileTarget, head, transfer) {
            return choice
        }
        do {
            if isStreaming, let sink = try streamSink(for: head, run: transfer.run) { return .stream(sink) }
        } catch {
            // The answer is not a stream this request can read (an event stream answered with 204 or
            // another content type): not retried, whatever the policy.
            if claimTransfer(transfer) != nil {
                finish(run: transfer.run, outcome: .failure(contextualize(error, as: { .parsing(underlying: $0) })))
            }
            return .ignore
        }
        if let expected, expected > limit {
            let error = ConnectionError(.responseTooLarge(limit: limit))
            attemptFailed(transfer, error: error, response: response)
            return .ignore
        }
        return .memory(limit: limit, expected: expected)
    }

    /// Where the body of `response` goes when the request saves to `fileTarget`; `nil` when it is not saved.
    private func fileChoice(
        _ placement: FileTarget.Placement, _ fileTarget: FileTarget, _ response: ConnectionResponse,
        _ transfer: TransferNumber
    ) -> SinkChoice? {
        switch placement {
        case .fresh:
            return .file(fileTarget, appendingAt: nil, validator: PartialFile.validator(of: response))
        case .append(let offset, _):
            return .file(fileTarget, appendingAt: offset, validator: fileTarget.resumePoint?.validator)
        case .restart:
            restartWithoutRange(transfer, fileTarget: fileTarget)
            return .ignore
        case .notSaved:
            return nil
        }
    }

    /// Why a response head cannot be accepted: a header block over the limit, or framing that cannot be trusted.
    private func headProblem(_ head: ResponseHead) -> ConnectionError? {
        let headerLimit = maximumResponseHeaderSize
        if head.size > headerLimit {
            return ConnectionError(.responseTooLarge(limit: Int64(headerLimit)))
        }
        guard let problem = ResponseFraming.problem(contentLength: head.contentLength) else { return nil }
        return ConnectionError(.transport(URLError(.badServerResponse, userInfo: [NSLocalizedDescriptionKey: problem])))
    }

    /// Counts bytes and reports progress at most every `interval` per direction. `bytes` adds to
    /// the download count; `total` sets the upload count. `force` reports whatever the rate.
    func transferDidProgress(
        _ direction: TransferProgress.Direction, bytes: Int64?, total: (sent: Int64, expected: Int64)?,
        transfer: TransferNumber, interval: TimeInterval, force: Bool = false
    ) {
        let event: RequestLifecycle.Event = direction == .upload ? .sent(transfer) : .data(transfer)
        let reported: (report: Report, client: ConnectionClient)? =
            storage.withLock { state in
                guard case .proceed = state.lifecycle.handle(event) else { return nil }
                let now = DispatchTime.now()
                state.lastActivity = now
                var counters = direction == .upload ? state.upload : state.download
                let knownBefore = counters.expected != nil
                if let bytes { counters.completed += bytes }
                if let total {
                    counters.completed = max(counters.completed, total.sent)
                    counters.expected = total.expected >= 0 ? total.expected : nil
                }
                let finished = counters.expected.map { counters.completed >= $0 } ?? false
                // A streamed body's length is learnt at its end, after its last bytes were reported.
                let learntLength = !knownBefore && counters.expected != nil
                let due =
                    (counters.completed != counters.lastReportedBytes || learntLength)
                    && (force || finished
                        || counters.lastReport.map {
                            Double(now.uptimeNanoseconds - $0.uptimeNanoseconds) / 1e9 >= interval
                        } ?? true)
                if due { (counters.lastReport, counters.lastReportedBytes) = (now, counters.completed) }
                if direction == .upload { state.upload = counters } else { state.download = counters }
                guard due else { return nil }
                let progress = TransferProgress(
                    direction: direction, completedBytes: counters.completed, expectedBytes: counters.expected)
                return (
                    Report(
                        progress: progress, last: force || finished, queue: state.callbackQueue,
                        delivery: state.delivery(of: transfer.run), handler: state.progressHandler),
                    state.client
                )
            }
        guard let reported else { return }
        let (report, client) = reported
        if let handler = report.handler {
            let progress = report.progress
            deliverEvent(of: transfer.run, via: report.delivery, queue: report.queue) { handler(progress) }
        }
        // Asked only when a report is due: the registry's lock is not taken for every chunk.
        if client.wantsProgress {
            client.notify(.progressed(report.progress, last: report.last), for: self)
        }
    }

    /// The transfer ended (on the processing queue): follow a redirect, fail, or validate and parse.
    func transferDidComplete(
        _ transfer: TransferNumber, response: TransportResponse?, error: (any Error)?, sink: (any BodySink)?
    ) {
        if let error {
            sink?.discard()
            attemptFailed(transfer, error: contextualize(error), response: response)
            return
        }
        guard let response else {
            sink?.discard()
            let error = ConnectionError(.transport(URLError(.badServerResponse)))
            attemptFailed(transfer, error: error, response: nil)
            return
        }
        if followsRedirects, RedirectRule.isRedirect(response) {
            sink?.discard()
            followRedirect(response, transfer: transfer)
            return
        }
        // The last progress report of the body, whatever the rate.
        transferDidProgress(
            .download, bytes: 0, total: nil, transfer: transfer, interval: progressInterval, force: true)
        var pipeline = RunPipeline.empty
        guard let claimed = claimTransfer(transfer, update: { pipeline = $0.pipeline }) else {
            sink?.discard()
            return
        }
        // The stages' part, the one nearest the transport first (the cache: a `304` to its conditions answers
        // from it).
        let run = transfer.run
        guard
            case .response(let answer, let answerSink) = pipeline.finalResponse(
                response, sink: sink, owner: self, run: run)
        else { return }
        validateAndParse(answer, sink: answerSink, pipeline: pipeline, run: run, attempt: claimed.attempt)
    }

    /// Whether the current transfer is a hop of a redirect, not the attempt's first request.
    var wasRedirected: Bool { storage.withLock { $0.redirectCount != 0 } }

    /// Puts `replacement` in the place of `response` as the current transfer's response (a stage answered
    /// with another one), when `response` is still it.
    func replaceResponse(_ response: TransportResponse, with replacement: TransportResponse) {
        storage.withLock { state in
            if state.response === response { state.response = replacement }
        }
    }

    /// The attempt's final answer (after the stages' part): its body finished, validated, parsed, handed to
    /// the stages (the cache stores it when allowed), and the run ended; or the next step of a failure (retry,
    /// a stage taking over, an answer after the failure).
    private func validateAndParse(
        _ answer: TransportResponse, sink answerSink: (any BodySink)?, pipeline: RunPipeline, run: RunNumber,
        attempt: Int
    ) {
        let body: CompletedBody
        do {
            body = try answerSink?.finish() ?? .memory(Data())
        } catch {
            finish(run: run, outcome: .failure(contextualize(error, as: { .fileSystem(underlying: $0) })))
            return
        }
        runClient.notify(.receivedBody(body), for: self)
        let head = hookResponse(answer)
        tellMiddleware(.response(head, body: body.inMemoryData))
        do {
            try validate(head, data: body.inMemoryData)
        } catch {
            body.discard()
            retryOrFail(run: run, attempt: attempt, error: contextualize(error), response: head)
            return
        }
        let output: any Sendable
        do {
            output = try produceOutput(body: body, response: head)
        } catch {
            body.discard()
            retryOrFail(
                run: run, attempt: attempt, error: contextualize(error, as: { .parsing(underlying: $0) }),
                response: head)
            return
        }
        pipeline.accepted(answer, body: body, owner: self)
        if !finish(run: run, outcome: .success(output), commit: body.commit) {
            body.discard()
        }
    }

    /// Sends the next hop of a redirect, or fails when the limit is reached.
    private func followRedirect(_ response: TransportResponse, transfer: TransferNumber) {
        let limit = maximumRedirects
        var sent: (request: URLRequest?, redirects: Int, pipeline: RunPipeline) = (nil, 0, .empty)
        let claimed = claimTransfer(transfer) { state in
            state.redirectCount += 1
            sent = (state.sentRequest, state.redirectCount, state.pipeline)
        }
        guard claimed != nil else { return }
        let run = transfer.run
        guard sent.redirects <= limit else {
            finish(run: run, outcome: .failure(ConnectionError(.tooManyRedirects(limit: limit))))
            return
        }
        // The next hop starts from what the stages make of the last one (the request's own cookies, without
        // the jar's); each stage then prepares it (the jar adds the cookies of the hop's URL).
        guard let previous = sent.request.map({ sent.pipeline.redirecting(from: $0) }),
            var next = RedirectRule.nextRequest(
                after: response, from: previous, secretHeaderFields: secretHeaderFields)
        else {
            finish(run: run, outcome: .failure(ConnectionError(.transport(URLError(.badServerResponse)))))
            return
        }
        do {
            try RequestChecks.check(&next, timeoutInterval: timeoutInterval, secretQueryItems: secretQueryItems)
        } catch {
            finish(run: run, outcome: .failure(contextualize(error)))
            return
        }
        if let refusal = TLSRouting.redirectRefusal(from: previous.url, to: next.url, tls: tls) {
            finish(run: run, outcome: .failure(contextualize(refusal)))
            return
        }
        sent.pipeline.prepareHop(&next, owner: self)
        beginTransfer(run: run, request: next)
    }

    /// `response` as the hooks see it, with what is known of the current attempt's metrics.
    func hookResponse(_ response: TransportResponse) -> ConnectionResponse {
        ConnectionResponse(response, metrics: storage.withLock { $0.attemptMetrics.last })
    }

    /// A progress report, handed out of the lock.
    private struct Report {
        let progress: TransferProgress
        /// Whether the report is known to be its direction's last: all the expected bytes, or the transfer over.
        let last: Bool
        let queue: DispatchQueue
        /// Where the run's events go when a task awaits it.
        let delivery: RunDelivery?
        let handler: (@Sendable (TransferProgress) -> Void)?
    }
}
