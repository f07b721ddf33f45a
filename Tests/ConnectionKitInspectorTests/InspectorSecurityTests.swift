import ConnectionKit
import ConnectionKitTesting
import Foundation
import Testing

@testable import ConnectionKitInspector

/// A request of these tests: a fixed URL and headers, secrets declared.
final class SecretProbe: ConnectionRequest<Data>, @unchecked Sendable {
    // Safe: every stored property is a `let` set in init.
    let target: URL
    let headers: [String: String]
    init(_ target: URL, headers: [String: String] = [:]) {
        self.target = target
        self.headers = headers
    }
    override var url: URL? { target }
    override var requestHeaderFields: [String: String] { headers }
    override var secretHeaderFields: Set<String> { ["X-Api-Key"] }
    override var secretQueryItems: Set<String> { ["token"] }
    override var timeoutInterval: TimeInterval { 60 }
}

/// The inspector's guards: the token on every endpoint, the Host check, POST-only cancels with the
/// token in a header from the same origin; and nothing it serves carries a secret.
@Suite(.timeLimit(.minutes(1))) struct InspectorSecurityTests {
    static let paths = ["/", "/api/live", "/api/history", "/api/statistics", "/api/har", "/metrics", "/api/events"]

    func started() throws -> (ConnectionInspector, port: Int, token: String) {
        let inspector = ConnectionInspector()
        let url = try inspector.start()
        let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        let token = components?.queryItems?.first { $0.name == "token" }?.value ?? ""
        return (inspector, url.port ?? 0, token)
    }

    @Test func theURLIsLoopbackWithA128BitTokenNewAtEachStart() throws {
        let (inspector, port, token) = try started()
        defer { inspector.stop() }
        #expect(inspector.url?.host == "127.0.0.1")
        #expect(port > 0)
        #expect(token.count == 32 && token.allSatisfy(\.isHexDigit), "128 bits as 32 hex digits")
        let other = ConnectionInspector()
        let otherURL = try other.start()
        defer { other.stop() }
        #expect(!otherURL.absoluteString.contains(token))
        inspector.stop()
        #expect(inspector.url == nil)
        #expect(throws: (any Error).self) { try InspectorClient.send("GET", "/?token=\(token)", port: port) }
        // The same inspector, started again: a new token, and the old one refused.
        let restarted = try inspector.start()
        let newToken = URLComponents(url: restarted, resolvingAgainstBaseURL: false)?.queryItems?.first?.value ?? ""
        #expect(newToken.count == 32 && newToken != token, "a restart makes a new token")
        let newPort = restarted.port ?? 0
        #expect(try InspectorClient.send("GET", "/?token=\(token)", port: newPort).status == 403)
        #expect(try InspectorClient.send("GET", "/?token=\(newToken)", port: newPort).status == 200)
    }

    @Test(arguments: InspectorSecurityTests.paths)
    func everyEndpointRefusesAMissingOrWrongToken(path: String) throws {
        let (inspector, port, token) = try started()
        defer { inspector.stop() }
        #expect(try InspectorClient.send("GET", path, port: port).status == 403)
        let wrong = String(token.reversed())
        #expect(try InspectorClient.send("GET", path + "?token=\(wrong)", port: port).status == 403)
        #expect(try InspectorClient.send("GET", path, port: port, headers: ["X-Inspector-Token": wrong]).status == 403)
        #expect(try InspectorClient.send("GET", path + "?token=\(token)x", port: port).status == 403)
        if path != "/api/events" {
            #expect(try InspectorClient.send("GET", path + "?token=\(token)", port: port).status == 200)
            #expect(
                try InspectorClient.send("GET", path, port: port, headers: ["X-Inspector-Token": token]).status == 200)
        }
    }

    @Test func aHostOtherThanLoopbackOrLocalhostIsRefused() throws {
        let (inspector, port, token) = try started()
        defer { inspector.stop() }
        for host in ["evil.example", "evil.example:\(port)", "127.0.0.2:\(port)", "localhost.evil.example"] {
            let answer = try InspectorClient.send(
                "GET", "/api/live?token=\(token)", port: port, headers: ["Host": host])
            #expect(answer.status == 421, "Host \(host)")
        }
        for host in ["127.0.0.1:\(port)", "localhost:\(port)", "LOCALHOST:\(port)", "127.0.0.1"] {
            let answer = try InspectorClient.send(
                "GET", "/api/live?token=\(token)", port: port, headers: ["Host": host])
            #expect(answer.status == 200, "Host \(host)")
        }
    }

    @Test func cancellingTakesAPostWithTheHeaderTokenFromTheSameOrigin() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/hang") { _ in TestResponse(fault: .neverRespond) }
        let (inspector, port, token) = try started()
        defer { inspector.stop() }
        let request = SecretProbe(server.url("/hang"))
        let endings = EndingRecorder()
        endings.track(request, queue: testCallbackQueue)
        request.start()
        defer { request.cancel() }
        let id = request.identifier.uuidString
        let path = "/api/cancel?id=\(id)"
        #expect(try InspectorClient.send("GET", path + "&token=\(token)", port: port).status == 405)
        #expect(
            try InspectorClient.send("POST", path + "&token=\(token)", port: port).status == 403, "token in the query")
        let header = ["X-Inspector-Token": token]
        let foreign = header.merging(["Origin": "http://evil.example"]) { $1 }
        #expect(try InspectorClient.send("POST", path, port: port, headers: foreign).status == 403)
        let crossSite = header.merging(["Sec-Fetch-Site": "cross-site"]) { $1 }
        #expect(try InspectorClient.send("POST", path, port: port, headers: crossSite).status == 403)
        #expect(request.state == .running, "refused calls cancel nothing")
        let same = header.merging(["Origin": "http://127.0.0.1:\(port)", "Sec-Fetch-Site": "same-origin"]) { $1 }
        let answer = try InspectorClient.send("POST", path, port: port, headers: same)
        #expect(answer.status == 200)
        #expect(answer.text == #"{"cancelled":1}"#)
        await endings.ended(within: 20)
        #expect((endings.error(request) as? ConnectionError)?.isCancelled == true)
    }

    @Test func cancellingByClassCancelsItsLiveRequests() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/hang") { _ in TestResponse(fault: .neverRespond) }
        let (inspector, port, token) = try started()
        defer { inspector.stop() }
        let requests = [ClassCancelProbe(server.url("/hang")), ClassCancelProbe(server.url("/hang"))]
        let endings = EndingRecorder()
        for request in requests { endings.track(request, queue: testCallbackQueue) }
        requests.forEach { $0.start() }
        let answer = try InspectorClient.send(
            "POST", "/api/cancel?class=ClassCancelProbe", port: port, headers: ["X-Inspector-Token": token])
        #expect(answer.text == #"{"cancelled":2}"#)
        await endings.ended(within: 20)
        for request in requests {
            #expect((endings.error(request) as? ConnectionError)?.isCancelled == true)
        }
    }

    @Test func noSecretLeavesAnyEndpoint() async throws {
        let apiKey = "key-\(UUID().uuidString)"
        let secretToken = "tok-\(UUID().uuidString)"
        let bearer = "bearer-\(UUID().uuidString)"
        let cookie = "sid-\(UUID().uuidString)"
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/ok") { _ in
            TestResponse(headers: [TestHeader("Set-Cookie", "s=\(cookie)")], body: .data(Data("fine".utf8)))
        }
        server.route("/hang") { _ in TestResponse(fault: .neverRespond) }
        let (inspector, port, token) = try started()
        defer { inspector.stop() }
        // Follow the events while the requests run.
        let events = try Socket(port: port)
        defer { events.close() }
        try events.write(Data("GET /api/events?token=\(token) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n".utf8))
        #expect(String(decoding: events.readSome(), as: UTF8.self).contains("text/event-stream"))
        let headers = ["X-Api-Key": apiKey, "Authorization": "Bearer \(bearer)", "Cookie": "c=\(cookie)"]
        let done = SecretProbe(server.url("/ok?token=\(secretToken)"), headers: headers)
        let live = SecretProbe(server.url("/hang?token=\(secretToken)"), headers: headers)
        let ending = EndingRecorder()
        ending.track(done, queue: testCallbackQueue)
        done.start()
        await ending.ended(within: 20)
        let liveEnding = EndingRecorder()
        liveEnding.track(live, queue: testCallbackQueue)
        live.start()
        defer { live.cancel() }
        var texts: [String] = []
        for path in Self.paths where path != "/api/events" {
            let answer = try InspectorClient.send("GET", path + "?token=\(token)", port: port)
            #expect(answer.status == 200, "\(path)")
            texts.append(answer.text)
        }
        live.cancel()
        await liveEnding.ended(within: 20)
        var streamed = ""
        for _ in 0..<5 where !streamed.contains("cancelled") {
            streamed += String(decoding: events.readSome(), as: UTF8.self)
        }
        #expect(streamed.contains("\"kind\":\"started\""), "the stream carried the requests' events")
        texts.append(streamed)
        #expect(texts[1].contains(live.identifier.uuidString), "/api/live lists the live request")
        #expect(texts[2].contains(done.identifier.uuidString), "/api/history lists the ended one")
        #expect(texts[2].contains("<redacted>"))
        // The texts hold the whole process's history (megabytes late in a full run): searched on a thread of
        // its own, not the test's pool thread (see `onOwnThread`).
        let secrets = [apiKey, secretToken, bearer, cookie]
        let found = await onOwnThread { [texts] in texts.map { text in secrets.map { text.contains($0) } } }
        for (text, leaks) in zip(texts, found) {
            for leaked in leaks {
                #expect(!leaked, "a secret leaked: \(text.prefix(300))")
            }
        }
    }

    @Test func metricsAreInThePrometheusTextFormat() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/ok") { _ in .text("12345") }
        let (inspector, port, token) = try started()
        defer { inspector.stop() }
        let request = MetricsProbe(server.url("/ok"))
        let ending = EndingRecorder()
        ending.track(request, queue: testCallbackQueue)
        request.start()
        await ending.ended(within: 20)
        let answer = try InspectorClient.send("GET", "/metrics?token=\(token)", port: port)
        #expect(answer.headers["content-type"]?.hasPrefix("text/plain; version=0.0.4") == true)
        let lines = answer.text.split(separator: "\n").map(String.init)
        #expect(lines.contains(#"connectionkit_requests_total{class="MetricsProbe",outcome="finished"} 1"#))
        #expect(lines.contains(#"connectionkit_request_duration_seconds_bucket{class="MetricsProbe",le="+Inf"} 1"#))
        #expect(lines.contains(#"connectionkit_request_duration_seconds_count{class="MetricsProbe"} 1"#))
        #expect(lines.contains(#"connectionkit_received_bytes_total{class="MetricsProbe"} 5"#))
        #expect(lines.contains("# TYPE connectionkit_in_flight_requests gauge"))
        #expect(lines.contains("# TYPE connectionkit_request_duration_seconds histogram"))
        // Every sample line: a metric name, optional labels, a number.
        let sample = /^[a-z_]+(\{[^}]*\})? [0-9.e+-]+$/
        for line in lines where !line.hasPrefix("#") {
            #expect(line.wholeMatch(of: sample) != nil, "not a sample line: \(line)")
        }
    }

    @Test func aPageThatNeverReadsLosesUpdatesNotMemory() {
        let subscriber = EventFanOut.Subscriber()
        let event = Data(repeating: 65, count: 400)
        for _ in 0..<(ConnectionInspector.eventQueueLimit * 5) { subscriber.push(event) }
        guard case .resync = subscriber.next(timeout: 0) else {
            Issue.record("an overflowing queue asks the page to reload")
            return
        }
        subscriber.push(event)
        guard case .events(let events) = subscriber.next(timeout: 0) else {
            Issue.record("events after the resync are delivered")
            return
        }
        #expect(events.count == 1)
    }
}

final class ClassCancelProbe: ConnectionRequest<Data>, @unchecked Sendable {
    // Safe: `target` is a `let` set in init.
    let target: URL
    init(_ target: URL) { self.target = target }
    override var url: URL? { target }
}

final class MetricsProbe: ConnectionRequest<Data>, @unchecked Sendable {
    // Safe: `target` is a `let` set in init.
    let target: URL
    init(_ target: URL) { self.target = target }
    override var url: URL? { target }
}
