import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Writes the debug output's blocks (see ``ConnectionDebug``): one request block per transfer
/// (attempt or redirect hop), a line per retry, one response block per run. Every entry point
/// returns after one lock when the request's run has debug output off, so the hot path stays cheap.
/// What a printing run keeps (its secrets, its body preview) lives here, not in the request.
enum DebugOutput {
    /// Whether `request`'s next run prints: the class's hook, else the global switch.
    static func isEnabled(for request: AnyConnectionRequest) -> Bool {
        request.isDebugOutputEnabled ?? ConnectionDebug.isEnabled
    }

    /// What the debug output keeps of one run that prints, between its start and its response block.
    struct Run {
        weak var request: AnyConnectionRequest?
        /// Secret values the run sent (longest first), scrubbed from body previews.
        var secrets: [String] = []
        /// The start of the final response's body.
        var preview: ResponseBodyPreview?
    }

    /// The runs that print, by request; the request's core keeps none of this.
    private static let runs = Locked([ObjectIdentifier: Run]())

    /// A run of `request` starts: it prints when ``isEnabled(for:)`` says so.
    static func begin(_ request: AnyConnectionRequest) {
        let enabled = isEnabled(for: request)
        runs.withLock { $0[ObjectIdentifier(request)] = enabled ? Run(request: request) : nil }
    }

    /// The current run of `request`, when it prints.
    static func run(of request: AnyConnectionRequest) -> Run? {
        runs.withLock { runs in runs[ObjectIdentifier(request)].flatMap { $0.request === request ? $0 : nil } }
    }

    /// Updates the current run of `request`, when it prints, and returns it.
    private static func updateRun(of request: AnyConnectionRequest, _ update: (inout Run) -> Void) -> Run? {
        runs.withLock { runs in
            let key = ObjectIdentifier(request)
            guard var run = runs[key], run.request === request else { return nil }
            update(&run)
            runs[key] = run
            return run
        }
    }

    /// The request block, for `sent` as it goes on the wire.
    static func requestSent(_ sent: URLRequest, by request: AnyConnectionRequest) {
        guard run(of: request) != nil else { return }
        let proxy = request.proxy
        let secrets = (headers: request.secretHeaderFields, query: request.secretQueryItems)
        // The proxy's credentials too: the transport sends them, so the request does not show them.
        let values =
            Redaction.secretValues(in: sent, secretHeaderFields: secrets.headers, secretQueryItems: secrets.query)
            + Redaction.proxySecretValues(proxy)
        let updated = updateRun(of: request) { run in
            run.secrets = Array(Set(run.secrets + values)).sorted { $0.count > $1.count }
        }
        guard let knownSecrets = updated?.secrets else { return }
        let (identifier, attempt, redirects) = request.storage.withLock { state in
            (state.identifier, state.attempt, state.redirectCount)
        }
        let hop = redirects > 0 ? ", redirect \(redirects)" : ""
        var lines = ["→ \(request.typeName) \(identifier) attempt \(attempt)\(hop)"]
        if !request.tls.verifiesServer {
            lines.append("⚠️ TLS NOT VERIFIED: TLSConfiguration.insecureForTestsOnly (any certificate, any host name)")
        }
        let url = Redaction.redactedURL(sent.url, secretQueryItems: secrets.query) ?? "-"
        lines.append("\(sent.httpMethod ?? "GET") \(url)")
        if let proxy { lines.append("proxy: \(ConnectionTransport.redactedProxy(proxy))") }
        lines += headerLines(sent.allHTTPHeaderFields ?? [:], secretHeaderFields: secrets.headers)
        if let body = sent.httpBody, !body.isEmpty {
            lines.append(bodyLine(body, totalCount: Int64(body.count), secrets: knownSecrets))
        } else if let streamed = request.storage.withLock({ $0.streamedBody?.body }), HTTPMethod(of: sent).allowsBody {
            // Its bytes are made as they are sent: there is nothing to preview.
            let length = streamed.length.map { "\($0) bytes" } ?? "length unknown, chunked"
            lines.append("body: streamed from an AsyncSequence (\(length))")
        }
        write(lines)
    }

    /// Keeps the start of the final response's body for the response block (debug runs only).
    static func recordBodyPreview(of body: CompletedBody, for request: AnyConnectionRequest) {
        guard var current = run(of: request) else { return }
        // The cookies the response sets are secrets of the run too: a body may echo them.
        let cookies = Redaction.setCookieValues(in: request.storage.withLock { $0.response?.head })
        if !cookies.isEmpty {
            current.secrets = Array(Set(current.secrets + cookies)).sorted { $0.count > $1.count }
            let secrets = current.secrets
            _ = updateRun(of: request) { $0.secrets = secrets }
        }
        let longestSecret = current.secrets.first?.utf8.count ?? 0
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
        _ = updateRun(of: request) { $0.preview = preview }
    }

    /// The retry line.
    static func retried(
        attempt: Int, after delay: TimeInterval, error: ConnectionError, for request: AnyConnectionRequest
    ) {
        guard run(of: request) != nil else { return }
        let identifier = request.identifier
        let seconds = String(format: "%.3f", delay)
        write(["↻ \(request.typeName) \(identifier) attempt \(attempt) in \(seconds) s after: \(error)"])
    }

    /// The response block.
    static func ended(_ outcome: RunOutcome, for request: AnyConnectionRequest) {
        let printed = runs.withLock { runs in
            runs.removeValue(forKey: ObjectIdentifier(request)).flatMap { $0.request === request ? $0 : nil }
        }
        guard let printed else { return }
        let (preview, secrets) = (printed.preview, printed.secrets)
        let (identifier, response, duration, metrics) = request.storage.withLock { state in
            let duration = state.dateStarted.map { (state.dateFinished ?? Date()).timeIntervalSince($0) } ?? 0
            return (state.identifier, state.response, duration, state.attemptMetrics.last)
        }
        let status = response.map { " \($0.statusCode)" } ?? ""
        let seconds = String(format: "%.3f", duration)
        var lines = ["← \(request.typeName) \(identifier) \(outcome.phase)\(status) in \(seconds) s"]
        switch outcome {
        case .success(let output): lines.append("result: \(summary(of: output))")
        case .failure(let error): lines.append("error: \(error.debugDescription)")
        case .cancelled: lines.append("error: cancelled")
        }
        if let metrics { lines.append(metricsLine(metrics)) }
        if let response, let line = sourceLine(response.source) { lines.append(line) }
        if let response {
            let fields = Redaction.scrubbed(response.head.fields, of: secrets)
            lines += headerLines(fields, secretHeaderFields: request.secretHeaderFields)
        }
        if let preview {
            if let savedTo = preview.savedTo { lines.append("saved to \(savedTo.path)") }
            lines.append(bodyLine(preview.bytes, totalCount: preview.totalCount, secrets: secrets))
        }
        write(lines)
    }

    // MARK: - Formatting

    /// `source: …`, where an answer not from the network came from; `nil` for one from the network.
    static func sourceLine(_ source: ResponseSource) -> String? {
        switch source {
        case .network: return nil
        case .cache: return "source: HTTP cache (fresh, nothing sent)"
        case .revalidated: return "source: HTTP cache, revalidated (the server answered 304 Not Modified)"
        case .staleCache: return "source: HTTP cache, stale (stale-while-revalidate, stale-if-error or offline first)"
        case .middleware: return "source: a middleware answered (nothing sent)"
        }
    }

    /// `metrics: attempt 1, new connection, 127.0.0.1:8080, http/1.1, dns 0.1 ms, …`: what is known
    /// of the last attempt (over URLSession on Linux, only ConnectionKit's own timings).
    static func metricsLine(_ metrics: ConnectionAttemptMetrics) -> String {
        var parts = ["attempt \(metrics.attempt)"]
        if let reused = metrics.isReusedConnection { parts.append(reused ? "reused connection" : "new connection") }
        if let address = metrics.remoteAddress, !address.isEmpty {
            let host = address.contains(":") ? "[\(address)]" : address
            parts.append(metrics.remotePort.map { "\(host):\($0)" } ?? host)
        }
        if let version = metrics.httpVersion { parts.append(version) }
        let times: [(String, TimeInterval?)] = [
            ("dns", metrics.domainLookupDuration), ("connect", metrics.connectDuration),
            ("tls", metrics.secureConnectionDuration),
            ("first byte", metrics.transferTimeToFirstByte ?? metrics.timeToFirstByte),
            ("total", metrics.transferDuration ?? metrics.duration),
        ]
        for case (let label, let seconds?) in times {
            parts.append(label + " " + String(format: "%.3f ms", seconds * 1000))
        }
        if let sent = metrics.bytesSent { parts.append("sent \(sent) bytes") }
        if let received = metrics.bytesReceived { parts.append("received \(received) bytes") }
        return "metrics: " + parts.joined(separator: ", ")
    }

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
            // Literal: a secret the server echoes with a combining mark after it is still found.
            text = text.replacingOccurrences(of: secret, with: Redaction.placeholder, options: .literal)
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
