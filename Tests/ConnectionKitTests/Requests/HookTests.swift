import ConnectionKit
import ConnectionKitTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// An endpoint whose hooks come from its initialiser, to observe each hook on the wire.
private final class ConfiguredEcho: ConnectionRequest<Data>, @unchecked Sendable {
    // Safe: only immutable stored properties.
    let target: URL
    let method: HTTPMethod
    let headers: [String: String]
    let body: Data?
    let timeout: TimeInterval

    init(
        _ target: URL, method: HTTPMethod = .get, headers: [String: String] = [:], body: Data? = nil,
        timeout: TimeInterval = 60
    ) {
        self.target = target
        self.method = method
        self.headers = headers
        self.body = body
        self.timeout = timeout
    }

    override var url: URL? { target }
    override var httpMethod: HTTPMethod { method }
    override var requestHeaderFields: [String: String] { headers }
    override var bodyData: Data? { body }
    override var timeoutInterval: TimeInterval { timeout }
}

/// Overrides the request builder entirely.
private final class CustomBuilder: ConnectionRequest<Data>, @unchecked Sendable {
    // Safe: only immutable stored properties.
    let target: URL
    init(_ target: URL) { self.target = target }
    override var url: URL? { target }
    override func makeURLRequest() throws -> URLRequest {
        var request = URLRequest(url: target.appendingPathComponent("custom"))
        request.httpMethod = "PUT"
        request.setValue("built-by-hand", forHTTPHeaderField: "X-Builder")
        request.httpBody = Data("payload".utf8)
        return request
    }
}

@Suite("Hooks take effect on the wire", .offThePool, .timeLimit(.minutes(20)))
struct HookTests {
    @Test("httpMethod is sent")
    func method() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/echo") { .echo($0) }
        for method in [HTTPMethod.post, .put, .patch, .delete, .options] {
            let request = ConfiguredEcho(
                server.url("/echo"), method: method, body: method == .post ? Data("x".utf8) : nil)
            _ = try await request.value()
        }
        #expect(server.receivedRequests("/echo").map(\.method) == ["POST", "PUT", "PATCH", "DELETE", "OPTIONS"])
    }

    @Test("requestHeaderFields replace a header rather than append to it")
    func headersReplace() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/echo") { .echo($0) }
        let request = ConfiguredEcho(
            server.url("/echo"), headers: ["Accept": "text/x-mine", "X-Custom": "one", "User-Agent": "HookTests/1"])
        _ = try await request.value()
        let received = try #require(server.receivedRequests("/echo").first)
        #expect(received.headers.filter { $0.name.lowercased() == "accept" }.map(\.value) == ["text/x-mine"])
        #expect(received.header("X-Custom") == "one")
        #expect(received.header("User-Agent") == "HookTests/1")
    }

    @Test("bodyData is sent as the body")
    func body() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/echo") { .echo($0) }
        let payload = Data((0..<100_000).map { UInt8($0 % 251) })
        _ = try await ConfiguredEcho(server.url("/echo"), method: .post, body: payload).value()
        #expect(server.receivedRequests("/echo").first?.body == payload)
    }

    @Test("a fractional timeoutInterval is honoured (Linux URLSession would fire at once below 1 s)", .exclusive)
    func fractionalTimeout() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        // The answer comes long after any plausible timer delay on a loaded machine: a timeout ignored
        // would end in that answer, a timeout honoured ends long before it.
        server.route("/slow") { _ in TestResponse(body: .data(Data("late".utf8)), delayBeforeHeaders: 60) }
        let request = ConfiguredEcho(server.url("/slow"), timeout: 0.5)
        let endings = Endings(request)
        request.start()
        let error = try await endings.connectionError()
        // The request's own clock: the awaiting task may resume late on a loaded machine.
        let elapsed = try #require(request.dateFinished).timeIntervalSince(try #require(request.dateStarted))
        #expect(error.isTimedOut)
        #expect(elapsed >= 0.45, "timed out after \(elapsed) s, before the 0.5 s timeout")
        #expect(elapsed < 30, "timed out after \(elapsed) s, long after the 0.5 s timeout")
        #expect(error.requestTypeName == "ConfiguredEcho")
    }

    @Test("the timeout is an idle timeout: a slow drip that keeps arriving succeeds", .exclusive)
    func idleTimeout() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        // 12 chunks 0.4 s apart: 4.4 s in all, longer than the 3 s timeout, never idle for that long
        // (the margin absorbs a busy machine: on Linux every transfer shares one serial queue).
        let body = Data(repeating: 7, count: 60)
        server.route("/drip") { _ in TestResponse(body: .drip(body, chunkSize: 5, interval: 0.4)) }
        let started = Date()
        let data = try await ConfiguredEcho(server.url("/drip"), timeout: 3).value()
        #expect(Date().timeIntervalSince(started) > 3)
        #expect(data == body)
    }

    @Test("a custom makeURLRequest is what gets sent")
    func customBuilder() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/custom") { .echo($0) }
        _ = try await CustomBuilder(server.url("/")).value()
        let received = try #require(server.receivedRequests("/custom").first)
        #expect(received.method == "PUT")
        #expect(received.header("X-Builder") == "built-by-hand")
        #expect(received.body == Data("payload".utf8))
    }

    @Test(
        "a zero, negative or NaN timeoutInterval is a clear invalidRequest",
        arguments: [0, -1, -TimeInterval.infinity, TimeInterval.nan])
    func badTimeout(timeout: TimeInterval) async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        let request = ConfiguredEcho(server.url("/x"), timeout: timeout)
        let error = try await Endings(request).connectionErrorAfterStart(request)
        guard let reason = error.reason else {
            Issue.record("expected invalidRequest, got \(error)")
            return
        }
        #expect(reason.contains("timeoutInterval"))
        #expect(server.hits("/x") == 0)
    }
}
