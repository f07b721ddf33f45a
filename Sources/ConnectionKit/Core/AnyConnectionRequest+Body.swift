import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension AnyConnectionRequest {
    // MARK: - Request body

    /// Applies ``requestBody``: the query, or the body and its `Content-Type` (unless one is set).
    func applyRequestBody(to request: inout URLRequest) throws {
        guard let body = requestBody else { return }
        var contentType = body.contentType
        switch body {
        case .query(let items):
            guard !items.isEmpty, let url = request.url else { return }
            request.url = URLComposer.compose(baseURL: url, path: "", queryItems: items)
            return
        case .form(let items):
            request.httpBody = Data(RequestBody.encodedForm(items).utf8)
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
        let method = request.httpMethod?.uppercased() ?? "GET"
        guard method == "GET" || method == "HEAD" else { return }
        throw ConnectionError(
            .invalidRequest(
                reason: "a \(method) request cannot carry a body. Send it as POST, or use RequestBody.query."))
    }

    /// Assembles the multipart body into a temporary file once per run (later attempts reuse it) and returns
    /// its `Content-Type`. The file is deleted when the run ends.
    private func prepareBodyFile(for form: MultipartForm) throws -> String {
        let current: (run: UInt64, running: Bool, contentType: String?) = storage.withLock {
            ($0.run, $0.phase == .running, $0.bodyFile == nil ? nil : $0.bodyFileContentType)
        }
        if let contentType = current.contentType { return contentType }
        guard current.running else {
            throw ConnectionError(.invalidRequest(reason: "a multipart body is assembled only while the request runs."))
        }
        let file = FileManager.default.temporaryDirectory
            .appendingPathComponent("ConnectionKit-multipart-\(UUID().uuidString)")
        try form.write(to: file)
        let kept = storage.withLock { state in
            guard state.run == current.run, state.phase == .running, state.bodyFile == nil else { return false }
            (state.bodyFile, state.bodyFileContentType) = (file, form.contentType)
            return true
        }
        guard kept else {
            // The run ended while the body was being written.
            try? FileManager.default.removeItem(at: file)
            throw ConnectionError(.cancelled)
        }
        return form.contentType
    }
}
