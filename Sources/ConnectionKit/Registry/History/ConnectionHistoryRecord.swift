import Foundation

/// One ended run, as ``ConnectionRegistry/history(of:outcome:since:until:)`` keeps it: plain values,
/// secrets redacted exactly as in snapshots, events and debug output.
public struct ConnectionHistoryRecord: Sendable, Hashable, Codable, Identifiable {
    /// How a run ended.
    public enum Outcome: String, Sendable, Hashable, Codable, CaseIterable {
        /// The run delivered a result.
        case finished
        /// The run ended with an error.
        case failed
        /// The run was cancelled.
        case cancelled
    }

    /// One header line, value redacted when secret.
    public struct HeaderField: Sendable, Hashable, Codable {
        /// The header name as sent or received.
        public var name: String
        /// The value, or `<redacted>`.
        public var value: String

        /// Creates a header line.
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// The run's identifier (``AnyConnectionRequest/identifier``).
    public var identifier: UUID
    /// The request class, e.g. `FetchEvents`.
    public var typeName: String
    /// The method as sent, e.g. `GET`.
    public var method: String
    /// The last URL sent, secret query items and any password redacted; `nil` when none was built.
    public var redactedURL: String?
    /// How the run ended.
    public var outcome: Outcome
    /// The final response's status, when one arrived.
    public var statusCode: Int?
    /// The error's kind, e.g. `timedOut` or `unacceptableStatusCode` (see ``ConnectionError/Kind``);
    /// `cancelled` for a cancelled run; `nil` when the run finished.
    public var errorKind: String?
    /// The error's message (``ConnectionError/errorDescription``); `nil` when the run finished.
    public var errorMessage: String?
    /// How many attempts were made (0 when the request could not even be built).
    public var attempts: Int
    /// When the run started.
    public var dateStarted: Date
    /// When the run ended.
    public var dateFinished: Date
    /// The last request's header fields, sorted by name, secrets redacted.
    public var requestHeaderFields: [HeaderField]
    /// The final response's header fields, sorted by name, secrets redacted.
    public var responseHeaderFields: [HeaderField]
    /// Request-body bytes sent by the last attempt.
    public var requestBodySize: Int64
    /// Response-body bytes received by the last attempt.
    public var responseBodySize: Int64
    /// The timings of each attempt, first to last.
    public var metrics: [ConnectionAttemptMetrics]
    /// The start of the response body with every secret the request sent replaced, as debug output
    /// shows it; kept only for classes whose debug output is on (``AnyConnectionRequest/isDebugOutputEnabled``
    /// or ``ConnectionDebug/isEnabled``), otherwise `nil`.
    public var responseBodyPreview: String?
    /// Where the final response came from: the network, or the class's HTTP cache (a hit, revalidated by a
    /// `304`, or stale); `nil` when no response arrived. Records decoded from before the cache existed
    /// have `nil`.
    public var responseSource: ResponseSource? = nil

    /// ``identifier``.
    public var id: UUID { identifier }

    /// Retries made: ``attempts`` minus one, never negative.
    public var retries: Int { max(0, attempts - 1) }

    /// Seconds from start to end.
    public var duration: TimeInterval { dateFinished.timeIntervalSince(dateStarted) }
}
