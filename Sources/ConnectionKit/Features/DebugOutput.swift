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
        guard request.storage.withLock({ $0.debugOutput }) else { return }
        let secrets = (headers: request.secretHeaderFields, query: request.secretQueryItems)
        let values = Redaction.secretValues(
            in: sent, secretHeaderFields: secrets.headers, secretQueryItems: secrets.query)
        let context: (UUID, Int, Int, [String]) = request.storage.withLock { state in
            state.debugSecrets = Array(Set(state.debugSecrets + values)).sorted { $0.count > $1.count }
            return (state.identifier, state.attempt, state.redirectCount, state.debugSecrets)
        }
        let (identifier, attempt, redirects, knownSecrets) = context
        let hop = redirects > 0 ? ", redirect \(redirects)" : ""
        var lines = ["→ \(request.typeName) \(identifier) attempt \(attempt)\(hop)"]
        if !request.tls.verifiesServer {
            lines.append("⚠️ TLS NOT VERIFIED: TLSConfiguration.insecureForTestsOnly (any certificate, any host name)")
        }
        let url = Redaction.redactedURL(sent.url, secretQueryItems: secrets.query) ?? "-"
        lines.append("\(sent.httpMethod ?? "GET") \(url)")
        lines += headerLines(sent.allHTTPHeaderFields ?? [:], secretHeaderFields: secrets.headers)
        if let body = sent.httpBody, !body.isEmpty {
            lines.append(bodyLine(body, totalCount: Int64(body.count), secrets: knownSecrets))
        }
        write(lines)
    }

    /// Keeps the start of the final response's body for the response block (debug runs only).
    static func recordBodyPreview(of body: CompletedBody, for request: AnyConnectionRequest) {
        let longestSecret: Int? = request.storage.withLock { state in
            state.debugOutput ? (state.debugSecrets.first?.utf8.count ?? 0) : nil
        }
        guard let longestSecret else { return }
        // Past the limit by the longest secret, so that a secret straddling the cut is still found.
        let keep = ConnectionDebug.bodyPreviewLimit + longestSecret
        let preview: ResponseBodyPreview
        switch body {
        case .memory(let data):
            preview = ResponseBodyPreview(bytes: data.prefix(keep), totalCount: Int64(data.count), savedTo: nil)
        case .file(let partial):
            let (temporary, destination) = (partial.temporary, partial.destination)
            let size =
                (try? FileManager.default.attributesOfItem(atPath: temporary.path)[.size] as? NSNumber)?
                .int64Value ?? 0
            let handle = try? FileHandle(forReadingFrom: temporary)
            let bytes = (try? handle?.read(upToCount: keep)) ?? nil
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
        typealias Ending = (UUID, HTTPURLResponse?, TimeInterval, ResponseBodyPreview?, [String])
        let ending: Ending? = request.storage.withLock { state in
            guard state.debugOutput else { return nil }
            let duration = state.dateStarted.map { (state.dateFinished ?? Date()).timeIntervalSince($0) } ?? 0
            defer { (state.responseBodyPreview, state.debugSecrets) = (nil, []) }
            return (state.identifier, state.urlResponse, duration, state.responseBodyPreview, state.debugSecrets)
        }
        guard let (identifier, response, duration, preview, secrets) = ending else { return }
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
            lines.append(bodyLine(preview.bytes, totalCount: preview.totalCount, secrets: secrets))
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

    /// `body (N bytes): text`, cut at ``ConnectionDebug/bodyPreviewLimit`` bytes, with every known
    /// secret value (what the request sent in secret headers and query items, which a server may
    /// echo back) replaced; binary bodies are counted, not shown.
    static func bodyLine(
        _ bytes: Data, totalCount: Int64, secrets: [String], limit: Int = ConnectionDebug.bodyPreviewLimit
    ) -> String {
        let head = "body (\(totalCount) bytes"
        guard !bytes.isEmpty else { return head + ")" }
        guard var text = decodedText(bytes) else { return head + "): <binary>" }
        for secret in secrets {
            text = text.replacingOccurrences(of: secret, with: Redaction.placeholder)
        }
        var shown = ""
        var used = 0
        for character in text {
            let size = character.utf8.count
            guard used + size <= limit else { break }
            shown.append(character)
            used += size
        }
        let isCut = shown.count < text.count || Int64(bytes.count) < totalCount
        let escaped = shown.replacingOccurrences(of: "\r", with: "\\r").replacingOccurrences(of: "\n", with: "\\n")
        return head + (isCut ? ", first \(limit) shown): " + escaped + "…" : "): " + escaped)
    }

    /// The bytes as text, allowing a character split at the end; `nil` for binary data.
    private static func decodedText(_ bytes: Data) -> String? {
        for trim in 0...min(3, bytes.count - 1) {
            guard let text = String(data: bytes.dropLast(trim), encoding: .utf8) else { continue }
            let isBinary = text.unicodeScalars.contains { $0.value < 0x20 && !"\n\r\t".unicodeScalars.contains($0) }
            return isBinary ? nil : text
        }
        return nil
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
