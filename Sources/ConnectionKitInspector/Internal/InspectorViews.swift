import ConnectionKit
import Foundation

/// A live request as the JSON endpoints and the page see it (from a redacted snapshot).
struct LiveView: Encodable {
    var id: String
    var type: String
    var method: String
    var url: String?
    var state: String
    var attempt: Int
    var started: Date?
    var elapsed: Double
    var sent: Int64
    var expectedSent: Int64?
    var received: Int64
    var expectedReceived: Int64?
    var status: Int?

    init(_ snapshot: ConnectionSnapshot) {
        id = snapshot.identifier.uuidString
        type = snapshot.typeName
        method = snapshot.method
        url = snapshot.redactedURL
        state = snapshot.state.rawValue
        attempt = snapshot.attempt
        started = snapshot.dateStarted
        elapsed = snapshot.elapsed
        sent = snapshot.bytesSent
        expectedSent = snapshot.bytesExpectedToSend
        received = snapshot.bytesReceived
        expectedReceived = snapshot.bytesExpectedToReceive
        status = snapshot.statusCode
    }
}

/// One segment of a run's waterfall, in milliseconds from the run's start.
struct PhaseView: Encodable {
    var name: String
    var start: Double
    var duration: Double
}

/// A history record plus what the page draws from it: the waterfall's phases and the cURL command.
struct HistoryView: Encodable {
    var record: ConnectionHistoryRecord
    var phases: [PhaseView]
    var curl: String

    init(_ record: ConnectionHistoryRecord) {
        self.record = record
        self.phases = Self.phases(of: record)
        self.curl = record.cURLCommand
    }

    /// Queue (run start to the last attempt's start: earlier attempts and backoff), then the last
    /// attempt's DNS, connect, TLS (when the transport reports them), wait (to the first response
    /// byte) and download (to the end). Only the phases that are known and take time.
    static func phases(of record: ConnectionHistoryRecord) -> [PhaseView] {
        let origin = record.dateStarted
        func ms(_ date: Date) -> Double { max(0, date.timeIntervalSince(origin) * 1000) }
        guard let last = record.metrics.last else {
            return [PhaseView(name: "wait", start: 0, duration: record.duration * 1000)]
        }
        var phases: [PhaseView] = []
        var cursor = ms(last.start)
        if cursor > 0 { phases.append(PhaseView(name: "queue", start: 0, duration: cursor)) }
        for (name, seconds) in [
            ("dns", last.domainLookupDuration), ("connect", last.connectDuration),
            ("tls", last.secureConnectionDuration),
        ] {
            guard let seconds, seconds > 0 else { continue }
            phases.append(PhaseView(name: name, start: cursor, duration: seconds * 1000))
            cursor += seconds * 1000
        }
        let end = ms(last.end ?? record.dateFinished)
        if let responseStart = last.responseStart {
            let firstByte = max(cursor, ms(responseStart))
            phases.append(PhaseView(name: "wait", start: cursor, duration: firstByte - cursor))
            phases.append(PhaseView(name: "download", start: firstByte, duration: max(0, end - firstByte)))
        } else {
            phases.append(PhaseView(name: "wait", start: cursor, duration: max(0, end - cursor)))
        }
        return phases
    }
}

/// One event for the page: its kind, the request's live values, and for an ending its outcome.
struct EventView: Encodable {
    var kind: String
    var request: LiveView
    var error: String?
    var delay: Double?

    init(_ event: ConnectionEvent) {
        kind = event.kind.name
        request = LiveView(event.snapshot)
        switch event.kind {
        case .failed(let failure): error = failure.description
        case .retried(_, let wait, let failure):
            error = failure.description
            delay = wait
        case .started, .sending, .progressed, .finished, .cancelled: break
        }
    }
}

enum InspectorJSON {
    static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .millisecondsSince1970
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    static func encode(_ value: some Encodable) -> Data {
        (try? encoder().encode(value)) ?? Data("null".utf8)
    }
}
