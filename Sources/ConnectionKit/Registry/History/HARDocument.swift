import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The HAR 1.2 document (http://www.softwareishard.com/blog/har-12-spec/) that
/// ``ConnectionRegistry/harData()`` writes: only the fields the format requires, plus the ones
/// ConnectionKit knows. Unknown timings are -1, as the format asks.
struct HARDocument: Encodable {
    struct Log: Encodable {
        var version = "1.2"
        var creator = NameVersion(name: "ConnectionKit", version: DefaultHeaders.connectionKitVersion)
        var pages: [String] = []
        var entries: [Entry]
    }

    struct NameVersion: Encodable {
        var name: String
        var version: String
    }

    struct NameValue: Encodable {
        var name: String
        var value: String
    }

    struct Entry: Encodable {
        var startedDateTime: String
        var time: Double
        var request: Request
        var response: Response
        var cache = Cache()
        var timings: Timings
        var serverIPAddress: String?
        var comment: String
        var typeName: String
        var identifier: String
        var isIncomplete: Bool
        var attempts: Int
        /// Where the response came from when it was the HTTP cache (`cache`, `revalidated`, `staleCache`,
        /// as ``ResponseSource`` names it); left out for a response from the network.
        var fromCache: String?

        enum CodingKeys: String, CodingKey {
            case startedDateTime, time, request, response, cache, timings, serverIPAddress, comment
            case typeName = "_typeName"
            case identifier = "_identifier"
            case isIncomplete = "_incomplete"
            case attempts = "_attempts"
            case fromCache = "_fromCache"
        }
    }

    struct Request: Encodable {
        var method, url, httpVersion: String
        var cookies: [NameValue] = []
        var headers: [NameValue]
        var queryString: [NameValue]
        var headersSize = -1
        var bodySize: Int64
    }

    struct Response: Encodable {
        var status: Int
        var statusText: String
        var httpVersion: String
        var cookies: [NameValue] = []
        var headers: [NameValue]
        var content: Content
        var redirectURL = ""
        var headersSize = -1
        var bodySize: Int64
    }

    struct Content: Encodable {
        var size: Int64
        var mimeType: String
        var text: String?
    }

    struct Cache: Encodable {}

    struct Timings: Encodable {
        /// In milliseconds, as HAR 1.2 gives them (-1: does not apply).
        var blocked, dns, connect, send, wait, receive, ssl: Double
    }

    var log: Log
}

extension HARDocument.Entry {
    /// The entry of an ended run; the timings are those of its last attempt, earlier attempts and
    /// backoff waits counted as `blocked`.
    init(_ record: ConnectionHistoryRecord, dateText: (Date) -> String) {
        let total = record.duration * 1000
        let last = record.metrics.last
        let attemptStart = last?.start ?? record.dateStarted
        let blocked = max(0, attemptStart.timeIntervalSince(record.dateStarted) * 1000)
        let dns = last?.domainLookupDuration.map { $0 * 1000 } ?? -1
        // HAR 1.2 counts the TLS handshake (`ssl`) inside `connect` as well; the metrics keep the TCP
        // connect apart (``ConnectionAttemptMetrics/connectDuration``).
        let ssl = last?.secureConnectionDuration.map { $0 * 1000 } ?? -1
        let connect = last?.connectDuration.map { $0 * 1000 + max(ssl, 0) } ?? ssl
        let setup = [dns, connect].filter { $0 > 0 }.reduce(0, +)
        let firstByte = last?.timeToFirstByte.map { $0 * 1000 }
        let wait = max(0, (firstByte ?? (total - blocked)) - setup)
        let receive = max(0, total - blocked - setup - wait)
        let version = last?.httpVersion?.uppercased() ?? "HTTP/1.1"
        let contentType =
            record.responseHeaderFields.first { $0.name.lowercased() == "content-type" }?.value
            ?? "application/octet-stream"
        self.init(
            startedDateTime: dateText(record.dateStarted),
            time: blocked + setup + wait + receive,
            request: .init(
                method: record.method, url: record.redactedURL ?? "about:blank", httpVersion: version,
                headers: record.requestHeaderFields.map { .init(name: $0.name, value: $0.value) },
                queryString: Self.query(of: record.redactedURL), bodySize: record.requestBodySize),
            response: .init(
                status: record.statusCode ?? 0,
                statusText: record.statusCode.map { HTTPURLResponse.localizedString(forStatusCode: $0) } ?? "",
                httpVersion: version,
                headers: record.responseHeaderFields.map { .init(name: $0.name, value: $0.value) },
                content: .init(size: record.responseBodySize, mimeType: contentType, text: nil),
                bodySize: record.responseBodySize),
            timings: .init(
                blocked: blocked, dns: dns, connect: connect, send: 0, wait: wait, receive: receive, ssl: ssl),
            serverIPAddress: last?.remoteAddress,
            comment: record.errorMessage.map { "\(record.outcome.rawValue): \($0)" } ?? record.outcome.rawValue,
            typeName: record.typeName, identifier: record.identifier.uuidString, isIncomplete: false,
            attempts: record.attempts,
            fromCache: record.responseSource.flatMap { $0.isFromCache ? $0.rawValue : nil })
    }

    /// The entry of a live run: incomplete, its time so far counted as waiting.
    init(live snapshot: ConnectionSnapshot, dateText: (Date) -> String) {
        let elapsed = max(0, snapshot.elapsed * 1000)
        self.init(
            startedDateTime: dateText(snapshot.dateStarted ?? Date()),
            time: elapsed,
            request: .init(
                method: snapshot.method, url: snapshot.redactedURL ?? "about:blank", httpVersion: "HTTP/1.1",
                headers: [], queryString: Self.query(of: snapshot.redactedURL), bodySize: snapshot.bytesSent),
            response: .init(
                status: snapshot.statusCode ?? 0, statusText: "", httpVersion: "HTTP/1.1", headers: [],
                content: .init(size: snapshot.bytesReceived, mimeType: "application/octet-stream", text: nil),
                bodySize: -1),
            timings: .init(blocked: -1, dns: -1, connect: -1, send: 0, wait: elapsed, receive: 0, ssl: -1),
            serverIPAddress: nil,
            comment: "incomplete: \(snapshot.state.rawValue), attempt \(snapshot.attempt)",
            typeName: snapshot.typeName, identifier: snapshot.identifier.uuidString, isIncomplete: true,
            attempts: snapshot.attempt)
    }

    /// The query items of a (redacted) URL, as the format lists them.
    private static func query(of text: String?) -> [HARDocument.NameValue] {
        guard let text, let question = text.firstIndex(of: "?") else { return [] }
        let query = text[text.index(after: question)...].prefix { $0 != "#" }
        return query.split(separator: "&").map { item in
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(parts[0])
            let value = parts.count > 1 ? String(parts[1]) : ""
            return .init(name: name.removingPercentEncoding ?? name, value: value.removingPercentEncoding ?? value)
        }
    }
}
