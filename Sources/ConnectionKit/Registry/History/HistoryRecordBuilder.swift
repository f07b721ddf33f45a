import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Turns an ended run into a ``ConnectionHistoryRecord``: one pass under the request's lock to copy
/// values, then redaction and the size caps outside it, when the record is read.
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
        var sentRequest: URLRequest?
        var statusCode: Int?
        var source: ResponseSource?
        var receivedHeaders: [String: String]
        var receivedHeaderBytes: Int
        var dateStarted: Date?
        var dateFinished: Date?
        var attempts: Int
        var bytesSent: Int64
        var bytesReceived: Int64
        var metrics: [ConnectionAttemptMetrics]
        var preview: ResponseBodyPreview?
        var secrets: [String]
    }

    /// What a record's header fields and body preview are made from, as the run left them: redacting,
    /// sorting and capping them is most of a record's cost, and most records are never read, so that
    /// work waits for ``applied(to:)`` (when the history is read). Holds no more than the capped record
    /// would: a run whose header fields are over ``headerBytesLimit`` is built at once instead.
    struct Details: Sendable {
        let sentRequest: URLRequest?
        let receivedHeaders: [String: String]
        let secretHeaderFields: Set<String>
        let preview: ResponseBodyPreview?
        let secrets: [String]

        /// `summary` with its header fields and body preview, secrets redacted.
        func applied(to summary: ConnectionHistoryRecord) -> ConnectionHistoryRecord {
            var record = summary
            record.requestHeaderFields = fields(
                sentRequest?.allHTTPHeaderFields ?? [:], secretHeaderFields: secretHeaderFields)
            record.responseHeaderFields = fields(
                Redaction.scrubbed(receivedHeaders, of: secrets), secretHeaderFields: secretHeaderFields)
            if let preview {
                record.responseBodyPreview = DebugOutput.bodyLine(
                    preview.bytes, totalCount: preview.totalCount, secrets: secrets)
            }
            return record
        }

        /// Header bytes, names and values, of the sent request's fields.
        fileprivate static func size(of request: URLRequest?) -> Int {
            (request?.allHTTPHeaderFields ?? [:]).reduce(0) { $0 + $1.key.utf8.count + $1.value.utf8.count }
        }
    }

    /// The record of `request`'s run that just ended with `outcome`, without its header fields and body
    /// preview, and what they are made from. Without `withDetails` (the history is off and only statistics
    /// count) there are no details, and the metrics are left empty.
    static func summary(
        of request: AnyConnectionRequest, outcome: RunOutcome, withDetails: Bool
    ) -> (summary: ConnectionHistoryRecord, details: Details?) {
        let debugRun = withDetails ? DebugOutput.run(of: request) : nil
        let copied = request.storage.withLock { state in
            Copied(
                identifier: state.identifier, method: state.sentMethod, redactedURL: state.redactedURL,
                sentRequest: withDetails ? state.sentRequest : nil,
                statusCode: state.response?.statusCode, source: state.response?.source,
                receivedHeaders: state.response?.head.fields ?? [:],
                receivedHeaderBytes: state.response?.head.size ?? 0,
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
        guard withDetails else { return (record, nil) }
        // Hooks are user code: read outside the request's lock.
        let details = Details(
            sentRequest: copied.sentRequest, receivedHeaders: copied.receivedHeaders,
            secretHeaderFields: request.secretHeaderFields, preview: copied.preview, secrets: copied.secrets)
        let large =
            copied.receivedHeaderBytes > headerBytesLimit || Details.size(of: copied.sentRequest) > headerBytesLimit
        return large ? (details.applied(to: record), nil) : (record, details)
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
