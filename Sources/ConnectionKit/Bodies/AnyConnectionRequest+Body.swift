import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension AnyConnectionRequest {
    // MARK: - Request body

    /// Applies ``requestBody``: the query, or the body and its `Content-Type` (unless one is set), after
    /// checking what it puts on the wire (the content type, a multipart form's boundary and part headers).
    func applyRequestBody(to request: inout URLRequest) throws {
        guard let body = requestBody else { return }
        var contentType = body.contentType
        var form: MultipartForm?
        if case .multipart(let multipart) = body { form = multipart }
        try WireValidation.check(
            method: nil, headerFields: contentType.map { [("Content-Type", $0)] } ?? [], form: form, hook: "requestBody"
        )
        switch body {
        case .query(let items):
            guard !items.isEmpty, let url = request.url else { return }
            request.url = URLComposer.compose(baseURL: url, path: "", queryItems: items)
            return
        case .form(let items):
            request.httpBody = Data(URLComposer.encodedForm(items).utf8)
        case .json(let value):
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            do {
                request.httpBody = try encoder.encode(value)
            } catch {
                throw ConnectionError(.invalidRequest(reason: "the JSON body could not be encoded: \(error)"))
            }
        case .data(let data, _):
            request.httpBody = data
        case .stream(let streamed):
            try Self.rejectBody(on: request)
            request.httpBody = nil
            try recordStreamedBody(streamed)
        case .multipart(let form):
            try Self.rejectBody(on: request)
            if let small = try form.smallBody() {
                request.httpBody = small
            } else {
                request.httpBody = nil
                contentType = try prepareBodyFile(for: form)
            }
        }
        try Self.rejectBody(on: request)
        if request.value(forHTTPHeaderField: "Content-Type") == nil, let contentType {
            request.setValue(contentType, forHTTPHeaderField: "Content-Type")
        }
    }

    private static func rejectBody(on request: URLRequest) throws {
        let method = HTTPMethod(of: request)
        guard !method.allowsBody else { return }
        throw ConnectionError(
            .invalidRequest(
                reason: "a \(method) request cannot carry a body. Send it as POST, or use RequestBody.query."))
    }

    /// The run's assembled body file, when `request` carries its body that way: not after a redirect turned
    /// it into a GET, nor when it has an in-memory body.
    func bodyFile(for request: URLRequest, run: RunNumber) -> URL? {
        let method = request.httpMethod?.uppercased() ?? "GET"
        guard request.httpBody == nil, method != "GET", method != "HEAD" else { return nil }
        return storage.withLock { $0.assembledBody?.run == run ? $0.assembledBody?.file : nil }
    }

    /// Sends `body` as the body of `request` (a one-off request's ``BasicConnectionRequest/streamedBody``), with
    /// its `Content-Type` unless `request` has one.
    func applyStreamedBody(_ body: StreamedBody, to request: inout URLRequest) throws {
        try WireValidation.check(method: nil, headerFields: [("Content-Type", body.contentType)], hook: "streamedBody")
        request.httpBody = nil
        try Self.rejectBody(on: request)
        try recordStreamedBody(body)
        if request.value(forHTTPHeaderField: "Content-Type") == nil {
            request.setValue(body.contentType, forHTTPHeaderField: "Content-Type")
        }
    }

    /// Records `body` as the streamed body of the running run's current attempt (its transfers read it).
    private func recordStreamedBody(_ body: StreamedBody) throws {
        let recorded = storage.withLock { state in
            guard let run = state.lifecycle.runningNumber else { return false }
            let sent = state.streamedBody.map { $0.run == run && $0.sentSingleUse } ?? false
            state.streamedBody = RunStreamedBody(run: run, body: body, sentSingleUse: sent)
            return true
        }
        guard recorded else {
            throw ConnectionError(
                .invalidRequest(
                    reason: "a streamed body (RequestBody.stream) is sent only while the request runs: it cannot "
                        + "be queued offline or built on its own."))
        }
    }

    /// A reader of the run's streamed body for a transfer that sends `request`: `nil` when `request` carries no
    /// streamed body (an in-memory one, or a redirect that turned it into a GET). Throws `bodyNotReplayable`
    /// when the body is single-use and a transfer of the run (or an earlier run) took it already.
    func streamedBodyReader(for request: URLRequest, run: RunNumber) throws(ConnectionError) -> StreamedBodyReader? {
        let method = request.httpMethod?.uppercased() ?? "GET"
        guard request.httpBody == nil, method != "GET", method != "HEAD" else { return nil }
        let current: (body: StreamedBody?, replay: Bool) = storage.withLock { state in
            guard var recorded = state.streamedBody, recorded.run == run else { return (nil, false) }
            guard !recorded.body.isReplayable else { return (recorded.body, false) }
            guard !recorded.sentSingleUse else { return (nil, true) }
            recorded.sentSingleUse = true
            state.streamedBody = recorded
            return (recorded.body, false)
        }
        if current.replay { throw ConnectionError(.bodyNotReplayable(reason: StreamedBody.notReplayableReason)) }
        return try current.body?.makeReader()
    }

    /// Deletes the body file of `run` and forgets its streamed body (called when the run ends); a later run's
    /// are left alone.
    func discardAssembledBody(of run: RunNumber) {
        let body: AssembledBody? = storage.withLock { state in
            if state.streamedBody?.run == run { state.streamedBody = nil }
            guard let body = state.assembledBody, body.run == run else { return nil }
            state.assembledBody = nil
            return body
        }
        if let body { try? FileManager.default.removeItem(at: body.file) }
    }

    /// Assembles the multipart body into a temporary file once per run (later attempts reuse it) and returns
    /// its `Content-Type`. The file is deleted when the run ends.
    private func prepareBodyFile(for form: MultipartForm) throws -> String {
        let current: (run: RunNumber?, reusable: AssembledBody?) = storage.withLock { state in
            let run = state.lifecycle.runningNumber
            return (run, run != nil && state.assembledBody?.run == run ? state.assembledBody : nil)
        }
        if let reusable = current.reusable { return reusable.contentType }
        guard let run = current.run else {
            throw ConnectionError(.invalidRequest(reason: "a multipart body is assembled only while the request runs."))
        }
        let file = FileManager.default.temporaryDirectory
            .appendingPathComponent("ConnectionKit-multipart-\(UUID().uuidString)")
        try form.write(to: file)
        let outcome: (kept: Bool, stale: AssembledBody?) = storage.withLock { state in
            guard state.lifecycle.isRunning(run) else { return (false, nil) }
            // A file left by an earlier run whose ending has not cleaned up yet: that ending will skip it.
            let stale = state.assembledBody
            state.assembledBody = AssembledBody(run: run, file: file, contentType: form.contentType)
            return (true, stale)
        }
        if let stale = outcome.stale { try? FileManager.default.removeItem(at: stale.file) }
        guard outcome.kept else {
            // The run ended while the body was being written.
            try? FileManager.default.removeItem(at: file)
            throw ConnectionError(.cancelled)
        }
        return form.contentType
    }
}
