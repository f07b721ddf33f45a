import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Turns an ended run into a ``ConnectionHistoryRecord``: one pass under the request's lock to copy
/// values, then redaction and the size caps outside it.
enum HistoryRecordBuilder {
    /// Header bytes (names and values) kept per direction; the rest is dropped with a marker field.
    static let headerBytesLimit = 8 * 1024
    /// Characters of the URL kept.
    static let urlLimit = 2 * 1024
    /// Characters of the error message kept.
    static let messageLimit = 1024
    /// Attempts whose metrics are kept (the last ones).
    static let metricsLimit = 16

    private struct Copied {
        var identifier: UUID
        var method: String?
        var redactedURL: String?
        var sentHeaders: [String: String]
        var statusCode: Int?
        var source: ResponseSource?
        var receivedHeaders: [String: String]
        var dateStarted: Date?
        var dateFinished: Date?
        var attempts: Int
        var bytesSent: Int64
        var bytesReceived: Int64
        var metrics: [ConnectionAttemptMetrics]
        var preview: ResponseBodyPreview?
        var secrets: [String]
    }

    /// The record of `request`'s run that just ended with `outcome`. Without `withDetails` (the
    /// history is off and only statistics count) header fields, metrics and preview are left empty.
    static func record(
        of request: AnyConnectionRequest, outcome: RunOutcome, withDetails: Bool
    ) -> ConnectionHistoryRecord {
        let debugRun = withDetails ? DebugOutput.run(of: request) : nil
        let copied = request.storage.withLock { state in
            Copied(
                identifier: state.identifier, method: state.sentMethod, redactedURL: state.redactedURL,
                sentHeaders: withDetails ? (state.sentRequest?.allHTTPHeaderFields ?? [:]) : [:],
                statusCode: state.response?.statusCode, source: state.response?.source,
                receivedHeaders: state.response?.head.fields ?? [:],
                dateStarted: state.dateStarted, dateFinished: state.dateFinished,
                attempts: state.attempt, bytesSent: state.upload.completed, bytesReceived: state.download.completed,
                metrics: withDetails ? state.attemptMetrics : [],
                preview: debugRun?.preview, secrets: debugRun?.secrets ?? [])
        }
        let finished = copied.dateFinished ?? Date()
        var record = ConnectionHistoryRecord(
            identifier: copied.identifier, typeName: request.typeName,
            method: copied.method ?? request.httpMethod.rawValue,
            redactedURL: copied.redactedURL.map { capped($0, urlLimit) }, outcome: .finished,
            statusCode: copied.statusCode, errorKind: nil, errorMessage: nil,
            attempts: copied.attempts, dateStarted: copied.dateStarted ?? finished, dateFinished: finished,
            requestHeaderFields: [], responseHeaderFields: [], requestBodySize: copied.bytesSent,
            responseBodySize: copied.bytesReceived, metrics: Array(copied.metrics.suffix(metricsLimit)),
            responseBodyPreview: nil)
        record.responseSource = copied.source
        switch outcome {
        case .success:
            break
        case .failure(let error):
            record.outcome = .failed
            record.errorKind = error.kind.name
            record.errorMessage = capped(error.description, messageLimit)
        case .cancelled:
            record.outcome = .cancelled
            record.errorKind = "cancelled"
            record.errorMessage = ConnectionError(.cancelled, requestTypeName: request.typeName).description
        }
        guard withDetails else { return record }
        // Hooks are user code: read outside the request's lock.
        let secretHeaders = request.secretHeaderFields
        record.requestHeaderFields = fields(copied.sentHeaders, secretHeaderFields: secretHeaders)
        record.responseHeaderFields = fields(
            Redaction.scrubbed(copied.receivedHeaders, of: copied.secrets), secretHeaderFields: secretHeaders)
        if let preview = copied.preview {
            record.responseBodyPreview = DebugOutput.bodyLine(
                preview.bytes, totalCount: preview.totalCount, secrets: copied.secrets)
        }
        return record
    }

    /// Redacted, sorted header fields, cut at ``headerBytesLimit`` bytes.
    static func fields(
        _ headers: [String: String], secretHeaderFields: Set<String>
    ) -> [ConnectionHistoryRecord.HeaderField] {
        var kept: [ConnectionHistoryRecord.HeaderField] = []
        var used = 0
        for (name, value) in Redaction.redactedHeaders(headers, secretHeaderFields: secretHeaderFields) {
            used += name.utf8.count + value.utf8.count
            guard used <= headerBytesLimit else {
                kept.append(
                    .init(name: "X-ConnectionKit-Truncated", value: "header fields over \(headerBytesLimit) bytes"))
                break
            }
            kept.append(.init(name: name, value: value))
        }
        return kept
    }

    private static func capped(_ text: String, _ limit: Int) -> String {
        text.count <= limit ? text : String(text.prefix(limit)) + "…"
    }
}
