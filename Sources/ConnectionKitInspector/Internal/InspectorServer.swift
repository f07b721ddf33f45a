import ConnectionKit
import Foundation
import HTTPServerCore

/// The inspector's engine: the checks every request passes, the endpoints, and the connection loop
/// over the shared ``HTTPListener``.
final class InspectorServer: Sendable {
    let registry: ConnectionRegistry
    private let listener = HTTPListener(
        name: "ConnectionInspector", maximumConnections: ConnectionInspector.maximumConnections,
        gate: HeadGate.Limits(
            headBytes: ConnectionInspector.maximumHeadBytes, timeout: ConnectionInspector.requestTimeout,
            maximumWaiting: ConnectionInspector.maximumWaitingConnections),
        yieldsToTheApp: true)
    private let fanOut = EventFanOut()
    private let token = Locked<InspectorToken?>(nil)

    init(registry: ConnectionRegistry) {
        self.registry = registry
    }

    // MARK: - Lifecycle

    func start(port: Int) throws -> URL {
        if let url { return url }
        let fresh = InspectorToken.random()
        token.withLock { $0 = fresh }
        do {
            let started = try listener.start(port: port) { [self] connection, id in
                serve(connection, id: id)
            }
            if started { fanOut.start(registry) }
        } catch let failure as SocketFailure {
            token.withLock { $0 = nil }
            let code = POSIXErrorCode(rawValue: failure.errno) ?? .EIO
            throw ConnectionError(.other(underlying: POSIXError(code)), requestTypeName: "ConnectionInspector")
        }
        return url ?? URL(fileURLWithPath: "/")
    }

    func stop() {
        fanOut.stop()
        listener.stop()
        token.withLock { $0 = nil }
    }

    var url: URL? {
        guard listener.isRunning, let token = token.withLock({ $0 }) else { return nil }
        return URL(string: "http://127.0.0.1:\(listener.port)/?token=\(token.text)")
    }

    // MARK: - Connections

    /// The limits on what a client may send before it has shown a token (see ``ConnectionInspector``).
    static let limits = HTTPRequestReader.Limits(
        headBytes: ConnectionInspector.maximumHeadBytes, headerLines: ConnectionInspector.maximumHeaderLines,
        requestTimeout: ConnectionInspector.requestTimeout)

    private func serve(_ connection: SocketConnection, id: Int) -> ConnectionDisposition {
        var reader = HTTPRequestReader(connection: connection, limits: Self.limits)
        do {
            while true {
                // Bodies are read and dropped: the inspector needs none, and memory stays bounded.
                guard let received = try reader.readRequest(connectionID: id, bodyConsumer: { _ in { _ in } }) else {
                    return .close
                }
                var response = respond(to: received.request)
                var subscriber: EventFanOut.Subscriber?
                if response.isEventStream {
                    subscriber = fanOut.subscribe()
                    if subscriber == nil { response = .refused(503, "Too many pages follow the events.") }
                }
                // A refusal ends the connection: a client without the token gets one answer per connection.
                let keepAlive = received.allowsKeepAlive && !response.isEventStream && response.status < 400
                try write(response, keepAlive: keepAlive, includeBody: received.request.method != "HEAD")
                if let subscriber {
                    streamEvents(to: connection, subscriber: subscriber)
                    return .close
                }
                guard keepAlive else { return .close }
            }
        } catch ConnectionEnd.headersTooLarge {
            answerAndClose(connection, "431 Request Header Fields Too Large")
            return .close
        } catch ConnectionEnd.malformedRequest {
            answerAndClose(connection, "400 Bad Request")
            return .close
        } catch {
            return .close
        }

        func write(_ response: InspectorResponse, keepAlive: Bool, includeBody: Bool) throws {
            var head = "HTTP/1.1 \(response.status) \(HTTPReasonPhrase.phrase(for: response.status))\r\n"
            var headers: [(String, String)] = [
                ("Content-Type", response.contentType),
                ("Cache-Control", "no-store"),
                ("X-Content-Type-Options", "nosniff"),
                ("X-Frame-Options", "DENY"),
                ("Referrer-Policy", "no-referrer"),
                ("Connection", keepAlive ? "keep-alive" : "close"),
            ]
            if !response.isEventStream { headers.append(("Content-Length", "\(response.body.count)")) }
            headers += response.extraHeaders
            for (name, value) in headers { head += "\(name): \(value)\r\n" }
            head += "\r\n"
            var data = Data(head.utf8)
            if includeBody { data.append(response.body) }
            try connection.write(data)
        }
    }

    /// Answers a request that cannot be read, then reads out briefly what the client still sends, so the
    /// close is a FIN rather than a reset that could destroy the answer before the client reads it.
    private func answerAndClose(_ connection: SocketConnection, _ status: String) {
        try? connection.write("HTTP/1.1 \(status)\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        connection.finishWriting()
        connection.drainBeforeClose(timeout: 1, maxBytes: ConnectionInspector.maximumHeadBytes)
    }

    /// Sends the page its events until it goes away or the inspector stops: a comment every 10 s
    /// when idle (to notice a closed page), `resync` after dropped updates.
    private func streamEvents(to connection: SocketConnection, subscriber: EventFanOut.Subscriber) {
        defer { fanOut.unsubscribe(subscriber) }
        do {
            try connection.write("retry: 1000\n\n")
            while true {
                switch subscriber.next(timeout: 10) {
                case .closed:
                    return
                case .idle:
                    try connection.write(": idle\n\n")
                case .resync:
                    try connection.write("event: resync\ndata: {}\n\n")
                case .events(let events):
                    var chunk = Data()
                    for event in events {
                        chunk.append(Data("data: ".utf8))
                        chunk.append(event)
                        chunk.append(Data("\n\n".utf8))
                    }
                    try connection.write(chunk)
                }
            }
        } catch {
            return
        }
    }

    // MARK: - Checks and endpoints

    /// Every request passes the `Host` check (against DNS rebinding) and the token check; state
    /// changes must be POSTs with the token in a header from the page's own origin.
    func respond(to request: ParsedRequest) -> InspectorResponse {
        let port = listener.port
        guard let expected = token.withLock({ $0 }) else { return .refused(503, "The inspector is stopped.") }
        guard Self.isLoopbackHost(request.header("Host"), port: port) else {
            return .refused(421, "The Host header must be 127.0.0.1 or localhost.")
        }
        let headerToken = request.header("X-Inspector-Token")
        guard expected.matches(headerToken ?? request.queryItems["token"]) else {
            return .refused(403, "A valid token is required (open the URL that start() returned).")
        }
        switch (request.method, request.path) {
        case ("POST", "/api/cancel"):
            guard expected.matches(headerToken) else {
                return .refused(403, "POST needs the token in the X-Inspector-Token header.")
            }
            guard Self.isSameOrigin(request, port: port) else {
                return .refused(403, "Cross-origin requests are refused.")
            }
            return cancel(request.queryItems)
        case (_, "/api/cancel"):
            return InspectorResponse(
                status: 405, contentType: "text/plain; charset=utf-8", body: Data("Use POST.\n".utf8),
                extraHeaders: [("Allow", "POST")])
        case ("GET", _), ("HEAD", _):
            return read(request)
        default:
            return InspectorResponse(
                status: 405, contentType: "text/plain; charset=utf-8", body: Data("Use GET.\n".utf8),
                extraHeaders: [("Allow", "GET, HEAD")])
        }
    }

    private func read(_ request: ParsedRequest) -> InspectorResponse {
        let query = request.queryItems
        switch request.path {
        case "/", "/index.html":
            return InspectorResponse(
                status: 200, contentType: "text/html; charset=utf-8", body: Data(InspectorPage.html.utf8),
                extraHeaders: [("Content-Security-Policy", InspectorPage.contentSecurityPolicy)])
        case "/api/live":
            return .json(InspectorJSON.encode(registry.snapshot().map(LiveView.init)))
        case "/api/history":
            return .json(InspectorJSON.encode(history(query)))
        case "/api/statistics":
            return .json(InspectorJSON.encode(registry.statistics()))
        case "/api/events":
            return InspectorResponse(status: 200, contentType: "text/event-stream", body: Data(), isEventStream: true)
        case "/api/har":
            do {
                var response = InspectorResponse(
                    status: 200, contentType: "application/json", body: try registry.harData())
                response.extraHeaders = [("Content-Disposition", "attachment; filename=\"connectionkit.har\"")]
                return response
            } catch {
                return .refused(500, "The HAR could not be made: \(error)")
            }
        case "/metrics":
            var inFlight: [String: Int] = [:]
            for snapshot in registry.snapshot() { inFlight[snapshot.typeName, default: 0] += 1 }
            return .text(
                PrometheusText.render(statistics: registry.statistics(), inFlight: inFlight),
                contentType: "text/plain; version=0.0.4; charset=utf-8")
        default:
            return .refused(404, "No such page.")
        }
    }

    /// Newest first; `class` (exact name), `outcome`, `since` (ms since 1970) and `limit` narrow it.
    private func history(_ query: [String: String]) -> [HistoryView] {
        let since = query["since"].flatMap(Double.init).map { Date(timeIntervalSince1970: $0 / 1000) }
        let outcome = query["outcome"].flatMap(ConnectionHistoryRecord.Outcome.init(rawValue:))
        let limit = query["limit"].flatMap(Int.init) ?? Int.max
        var records = registry.history(outcome: outcome, since: since)
        if let type = query["class"], !type.isEmpty { records = records.filter { $0.typeName == type } }
        return records.reversed().prefix(max(0, limit)).map(HistoryView.init)
    }

    /// `id=<UUID>` cancels that live request; `class=<Name>` every live request of that class or a subclass.
    private func cancel(_ query: [String: String]) -> InspectorResponse {
        let live = registry.activeRequests
        let matching: [AnyConnectionRequest]
        if let id = query["id"].flatMap(UUID.init(uuidString:)) {
            matching = live.filter { $0.identifier == id }
        } else if let type = query["class"], !type.isEmpty {
            matching = live.filter { Self.classNames(of: $0).contains(type) }
        } else {
            return .refused(400, "Give id=<identifier> or class=<name>.")
        }
        matching.forEach { $0.cancel() }
        return .json(Data("{\"cancelled\":\(matching.count)}".utf8))
    }

    // MARK: - Helpers

    static func isLoopbackHost(_ host: String?, port: Int) -> Bool {
        guard let host = host?.lowercased() else { return false }
        return ["127.0.0.1", "localhost"].contains { host == $0 || host == "\($0):\(port)" }
    }

    /// `Origin`, when sent, must be the inspector's own; so must `Sec-Fetch-Site`.
    static func isSameOrigin(_ request: ParsedRequest, port: Int) -> Bool {
        if let site = request.header("Sec-Fetch-Site"), site != "same-origin" { return false }
        guard let origin = request.header("Origin") else { return true }
        return ["127.0.0.1", "localhost"].contains { origin.lowercased() == "http://\($0):\(port)" }
    }

    /// The names of the request's class and its superclasses.
    static func classNames(of request: AnyConnectionRequest) -> [String] {
        var names: [String] = []
        var current: AnyClass? = type(of: request)
        while let type = current {
            names.append(String(describing: type))
            current = _getSuperclass(type)
        }
        return names
    }
}
