import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Writes the debug output's blocks (see ``ConnectionDebug``): one request block per transfer
/// (attempt or redirect hop), a line per retry, one response block per run. Every entry point
/// returns after one lock when the request's run has debug output off, so the hot path stays cheap.
enum DebugOutput {
    /// Whether `request`'s next run prints: the class's hook, else the global switch.
    static func isEnabled(for request: AnyConnectionRequest) -> Bool {
        request.isDebugOutputEnabled ?? ConnectionDebug.isEnabled
    }

    /// The request block, for `sent` as it goes on the wire.
    static func requestSent(_ sent: URLRequest, by request: AnyConnectionRequest) {
        let context: (UUID, Int, Int)? = request.storage.withLock { state in
            state.debugOutput ? (state.identifier, state.attempt, state.redirectCount) : nil
        }
        guard let (identifier, attempt, redirects) = context else { return }
        let secrets = (headers: request.secretHeaderFields, query: request.secretQueryItems)
        let hop = redirects > 0 ? ", redirect \(redirects)" : ""
        var lines = ["→ \(request.typeName) \(identifier) attempt \(attempt)\(hop)"]
        let url = Redaction.redactedURL(sent.url, secretQueryItems: secrets.query) ?? "-"
        lines.append("\(sent.httpMethod ?? "GET") \(url)")
        lines += headerLines(sent.allHTTPHeaderFields ?? [:], secretHeaderFields: secrets.headers)
        if let body = sent.httpBody, !body.isEmpty {
            lines.append(bodyLine(body.prefix(ConnectionDebug.bodyPreviewLimit), totalCount: Int64(body.count)))
        }
        write(lines)
    }

    /// Keeps the start of the final response's body for the response block (debug runs only).
    static func recordBodyPreview(of body: CompletedBody, for request: AnyConnectionRequest) {
        guard request.storage.withLock({ $0.debugOutput }) else { return }
        let limit = ConnectionDebug.bodyPreviewLimit
        let preview: ResponseBodyPreview
        switch body {
        case .memory(let data):
            preview = ResponseBodyPreview(bytes: data.prefix(limit), totalCount: Int64(data.count), savedTo: nil)
        case .file(let temporary, let destination):
            let size = (try? FileManager.default.attributesOfItem(atPath: temporary.path)[.size] as? NSNumber)?
                .int64Value ?? 0
            let handle = try? FileHandle(forReadingFrom: temporary)
            let bytes = (try? handle?.read(upToCount: limit)) ?? nil
            try? handle?.close()
            preview = ResponseBodyPreview(bytes: bytes ?? Data(), totalCount: size, savedTo: destination)
        }
        request.storage.withLock { $0.responseBodyPreview = preview }
    }

    /// Retry lines and the response block; other emissions print nothing.
    static func record(_ emission: ConnectionRegistry.Emission, for request: AnyConnectionRequest) {
        switch emission {
        case .started, .progressed:
            return
        case .retried(let attempt, let delay, let error):
            let identifier: UUID? = request.storage.withLock { $0.debugOutput ? $0.identifier : nil }
            guard let identifier else { return }
            let seconds = String(format: "%.3f", delay)
            write(["↻ \(request.typeName) \(identifier) attempt \(attempt) in \(seconds) s after: \(error)"])
        case .ended(let outcome):
            responseBlock(outcome, for: request)
        }
    }

    private static func responseBlock(_ outcome: RunOutcome, for request: AnyConnectionRequest) {
        typealias Ending = (UUID, HTTPURLResponse?, TimeInterval, ResponseBodyPreview?)
        let ending: Ending? = request.storage.withLock { state in
            guard state.debugOutput else { return nil }
            let duration = state.dateStarted.map { (state.dateFinished ?? Date()).timeIntervalSince($0) } ?? 0
            defer { state.responseBodyPreview = nil }
            return (state.identifier, state.urlResponse, duration, state.responseBodyPreview)
        }
        guard let (identifier, response, duration, preview) = ending else { return }
        let status = response.map { " \($0.statusCode)" } ?? ""
        let seconds = String(format: "%.3f", duration)
        var lines = ["← \(request.typeName) \(identifier) \(outcome.phase)\(status) in \(seconds) s"]
        switch outcome {
        case .success(let output): lines.append("result: \(summary(of: output))")
        case .failure(let error): lines.append("error: \(error.debugDescription)")
        case .cancelled: lines.append("error: cancelled")
        }
        if let response {
            var headers: [String: String] = [:]
            for (name, value) in response.allHeaderFields {
                headers[String(describing: name)] = String(describing: value)
            }
            lines += headerLines(headers, secretHeaderFields: request.secretHeaderFields)
        }
        if let preview {
            if let savedTo = preview.savedTo { lines.append("saved to \(savedTo.path)") }
            lines.append(bodyLine(preview.bytes, totalCount: preview.totalCount))
        }
        write(lines)
    }

    // MARK: - Formatting

    private static func write(_ lines: [String]) {
        let text = lines.enumerated().map { $0.offset == 0 ? "[ConnectionKit] \($0.element)" : "  \($0.element)" }
        ConnectionDebug.sink(text.joined(separator: "\n") + "\n")
    }

    private static func headerLines(_ headers: [String: String], secretHeaderFields: Set<String>) -> [String] {
        Redaction.redactedHeaders(headers, secretHeaderFields: secretHeaderFields).map { "\($0.0): \($0.1)" }
    }

    /// `body (N bytes): text`, cut at the preview limit; binary bodies are counted, not shown.
    static func bodyLine(_ shown: Data, totalCount: Int64) -> String {
        let cut = Int64(shown.count) < totalCount ? " (first \(shown.count) shown)" : ""
        let head = "body (\(totalCount) bytes\(cut))"
        guard !shown.isEmpty else { return head }
        // A cut may split a UTF-8 character: drop up to three trailing bytes before giving up.
        for trim in 0...min(3, shown.count - 1) {
            if let text = String(data: shown.dropLast(trim), encoding: .utf8),
                !text.unicodeScalars.contains(where: { $0.value < 0x20 && $0 != "\n" && $0 != "\r" && $0 != "\t" })
            {
                let escaped = text.replacingOccurrences(of: "\r", with: "\\r").replacingOccurrences(of: "\n", with: "\\n")
                return head + ": " + escaped + (cut.isEmpty ? "" : "…")
            }
        }
        return head + ": <binary>"
    }

    /// What a successful run produced, without its contents.
    private static func summary(of output: any Sendable) -> String {
        switch output {
        case let data as Data: return "Data (\(data.count) bytes)"
        case let url as URL: return "file \(url.path)"
        case let collection as any Collection: return "\(type(of: output)) (\(collection.count) elements)"
        default: return "\(type(of: output))"
        }
    }
}
