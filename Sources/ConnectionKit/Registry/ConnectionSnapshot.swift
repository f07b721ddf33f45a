import Foundation

/// A request as the registry saw it at one moment: plain values for debug tooling, secrets redacted.
public struct ConnectionSnapshot: Sendable, Hashable, Identifiable {
    /// The run's identifier (``AnyConnectionRequest/identifier``).
    public var identifier: UUID
    /// The request class, e.g. `FetchEvents`.
    public var typeName: String
    /// The method of the request as sent, e.g. `GET`; the class's ``AnyConnectionRequest/httpMethod``
    /// before the first attempt was built.
    public var method: String
    /// The URL as sent, with secret query items and any password redacted; `nil` before it was built.
    public var redactedURL: String?
    /// The lifecycle state.
    public var state: ConnectionState
    /// When the run started.
    public var dateStarted: Date?
    /// Seconds since the start (to the end, once ended).
    public var elapsed: TimeInterval
    /// Request-body bytes sent in this attempt.
    public var bytesSent: Int64
    /// The request body's size, when known.
    public var bytesExpectedToSend: Int64?
    /// Response-body bytes received in this attempt.
    public var bytesReceived: Int64
    /// The response body's declared size, when known.
    public var bytesExpectedToReceive: Int64?
    /// The attempt number, starting at 1 (0 before the first attempt).
    public var attempt: Int
    /// The status of the last response, once one arrived.
    public var statusCode: Int?
    /// For a streaming request (``StreamingConnectionRequest``), the elements its current or last run
    /// received so far; `nil` for a request that does not stream.
    public var elementCount: Int? = nil
    /// What the run measured so far, attempt by attempt (see ``ConnectionMetrics``); complete in the
    /// snapshot of the event that ends the run.
    public var metrics = ConnectionMetrics()

    /// `identifier`, so that a list of snapshots can drive a SwiftUI `List`.
    public var id: UUID { identifier }
}

extension AnyConnectionRequest {
    /// The request's current values as a snapshot.
    func makeSnapshot() -> ConnectionSnapshot {
        let typeName = self.typeName
        var snapshot = storage.withLock { state in
            var snapshot = ConnectionSnapshot(
                identifier: state.identifier,
                typeName: typeName,
                method: state.sentMethod ?? "",
                redactedURL: state.redactedURL,
                state: state.phase,
                dateStarted: state.dateStarted,
                elapsed: state.dateStarted.map { (state.dateFinished ?? Date()).timeIntervalSince($0) } ?? 0,
                bytesSent: state.upload.completed,
                bytesExpectedToSend: state.upload.expected,
                bytesReceived: state.download.completed,
                bytesExpectedToReceive: state.download.expected,
                attempt: state.attempt,
                statusCode: state.response?.statusCode
            )
            snapshot.metrics = ConnectionMetrics(attempts: state.attemptMetrics)
            return snapshot
        }
        // Before the first attempt is built, the hook says (read outside the lock: it is user code).
        if snapshot.method.isEmpty { snapshot.method = httpMethod.rawValue }
        snapshot.elementCount = streamedElementCount
        return snapshot
    }
}
