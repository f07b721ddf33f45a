import ConnectionKit
import ConnectionKitTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A request whose `makeURLRequest()` adds `extraHeaders` to what the default builds: the hook an app
/// overrides to shape the `URLRequest` itself.
private final class ShapedRequest: ConnectionRequest<Data>, @unchecked Sendable {
    // Safe: only immutable stored properties.
    let target: URL
    let extraHeaders: [String: String]
    let body: Data?
    init(_ target: URL, extraHeaders: [String: String], body: Data? = nil) {
        self.target = target
        self.extraHeaders = extraHeaders
        self.body = body
    }
    override var url: URL? { target }
    override var httpMethod: HTTPMethod { body == nil ? .get : .post }
    override var bodyData: Data? { body }
    override var timeoutInterval: TimeInterval { 60 }  // bounds a failure only
    override func makeURLRequest() throws -> URLRequest {
        var request = try super.makeURLRequest()
        for (name, value) in extraHeaders { request.setValue(value, forHTTPHeaderField: name) }
        return request
    }
}

/// Framing headers (`Content-Length`, `Transfer-Encoding`, `Host` and the hop-by-hop fields) are the
/// library's and its transport's to write: set by a hook, they would frame a second, smuggled request
/// behind the body. Such a request fails with `invalidRequest` naming the hook and the header, before a
/// connection is opened. So do header values with control characters other than tab, and header fields
/// too large for any server. Run on both transports (`CONNECTIONKIT_TEST_TRANSPORT=libcurl`).
@Suite(.offThePool, .timeLimit(.minutes(2))) struct HookFramingTests {
    /// What a hostile body carries after its first three bytes: a whole second request.
    private static let smuggling = "abcGET /smuggled HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\n\r\n"

    /// Starts `makeRequest` (given the target URL) against a fresh server and returns the `invalidRequest`
    /// reason, checking that the server never saw a connection, let alone the smuggled request.
    private func refusedBeforeSending(
        sourceLocation: SourceLocation = #_sourceLocation, _ makeRequest: (URL) -> ConnectionRequest<Data>
    ) async throws -> String {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/target") { .echo($0) }
        server.route("/smuggled") { _ in .text("SMUGGLED") }
        let request = makeRequest(server.url("/target"))
        let endings = Endings(request)
        // start() validates the header fields at once: seconds of CPU for 10 MiB in a debug build, run on a
        // thread of its own, not the test's pool thread (see `onOwnThread`).
        await onOwnThread { request.start() }
        let error = try await endings.connectionError(sourceLocation: sourceLocation)
        await endings.queue.drain()
        #expect(endings.count == 1, "exactly one ending", sourceLocation: sourceLocation)
        let reason = invalidRequestReason(error, sourceLocation: sourceLocation)
        #expect(server.hits("/target") == 0, "nothing sent", sourceLocation: sourceLocation)
        #expect(server.hits("/smuggled") == 0, "no smuggled request", sourceLocation: sourceLocation)
        #expect(server.acceptedConnectionCount == 0, "no connection opened", sourceLocation: sourceLocation)
        return reason
    }

    @Test(
        "a framing header from requestHeaderFields is refused, whatever its case",
        arguments: [
            ("Content-Length", "3"), ("content-length", "3"), ("Transfer-Encoding", "chunked"),
            ("Host", "evil.example"), ("Connection", "close"), ("Upgrade", "h2c"), ("TE", "trailers"),
            ("Trailer", "X-Late"), ("Keep-Alive", "timeout=5"), ("Proxy-Connection", "keep-alive"),
        ])
    func aFramingHeaderFromRequestHeaderFieldsIsRefused(name: String, value: String) async throws {
        let reason = try await refusedBeforeSending { url in
            HostileRequest(
                HostileHooks(
                    url: url, method: .post, headers: [name: value],
                    body: .data(Data(Self.smuggling.utf8), contentType: "text/plain")))
        }
        #expect(reason.contains("requestHeaderFields"), "\(reason)")
        #expect(reason.contains("`\(name)`"), "names the header: \(reason)")
        #expect(reason.contains("smuggled"), "says why: \(reason)")
    }

    @Test("a framing header from defaultHeaderFields is refused", arguments: ["Host", "Transfer-Encoding"])
    func aFramingHeaderFromDefaultHeaderFieldsIsRefused(name: String) async throws {
        let reason = try await refusedBeforeSending { url in
            HostileRequest(HostileHooks(url: url, defaultHeaders: [name: "chunked"]))
        }
        #expect(reason.contains("defaultHeaderFields"), "\(reason)")
    }

    @Test(
        "a framing header makeURLRequest() sets is refused",
        arguments: [("Content-Length", "3"), ("Transfer-Encoding", "chunked"), ("Host", "evil.example")])
    func aFramingHeaderFromMakeURLRequestIsRefused(name: String, value: String) async throws {
        let reason = try await refusedBeforeSending { url in
            ShapedRequest(url, extraHeaders: [name: value], body: Data(Self.smuggling.utf8))
        }
        #expect(reason.contains("makeURLRequest()"), "\(reason)")
        #expect(reason.contains("`\(name)`"), "names the header: \(reason)")
    }

    @Test("the library still frames a body itself: the server reads exactly one request with the whole body")
    func aBodyIsFramedByTheLibrary() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/target") { .echo($0) }
        server.route("/smuggled") { _ in .text("SMUGGLED") }
        let request = ShapedRequest(server.url("/target"), extraHeaders: [:], body: Data(Self.smuggling.utf8))
        let echoed = try JSONDecoder().decode(TestRequest.self, from: try await request.value())
        #expect(echoed.body == Data(Self.smuggling.utf8))
        #expect(server.hits("/smuggled") == 0)
    }

    // MARK: - Control characters and size

    @Test(
        "a header value with a control character other than tab is refused, and the value is not quoted",
        arguments: ["a\u{0B}b", "a\u{0C}b", "a\u{1B}[31mred", "a\u{08}b", "a\u{7F}b", "a\u{01}b", "a\u{1F}b"])
    func aControlCharacterInAValueIsRefused(value: String) async throws {
        let reason = try await refusedBeforeSending { url in
            HostileRequest(HostileHooks(url: url, headers: ["X-Note": value]))
        }
        #expect(reason.contains("requestHeaderFields"), "\(reason)")
        #expect(reason.contains("X-Note"), "\(reason)")
        #expect(reason.contains("control character"), "\(reason)")
        #expect(!reason.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }, "\(reason)")
    }

    @Test("a control character makeURLRequest() puts in a value is refused")
    func aControlCharacterFromMakeURLRequestIsRefused() async throws {
        let reason = try await refusedBeforeSending { url in ShapedRequest(url, extraHeaders: ["X-Note": "a\u{1B}b"]) }
        #expect(reason.contains("makeURLRequest()"), "\(reason)")
    }

    @Test("10 MiB of request header fields are an invalidRequest about the request, not responseTooLarge")
    func aTenMegabyteRequestHeaderIsInvalidRequest() async throws {
        let big = String(repeating: "a", count: 10 * 1024 * 1024)
        let reason = try await refusedBeforeSending { url in
            HostileRequest(HostileHooks(url: url, headers: ["X-Big": big]))
        }
        #expect(reason.contains("header fields"), "\(reason)")
        #expect(reason.utf8.count < 1024, "the value is not quoted")
    }

    @Test("many header fields that add up to 10 MiB from makeURLRequest() are an invalidRequest too")
    func manyFieldsAddingUpAreInvalidRequest() async throws {
        let value = String(repeating: "v", count: 64 * 1024)
        var headers: [String: String] = [:]
        for index in 0..<160 { headers["X-Field-\(index)"] = value }
        let reason = try await refusedBeforeSending { url in ShapedRequest(url, extraHeaders: headers) }
        #expect(reason.contains("makeURLRequest()"), "\(reason)")
        #expect(reason.contains("header fields"), "\(reason)")
    }

    @Test("tabs, non-ASCII and a 64 KiB header are still sent as they are")
    func ordinaryValuesAreSent() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/target") { .echo($0) }
        let long = String(repeating: "x", count: 64 * 1024)
        let request = HostileRequest(
            HostileHooks(url: server.url("/target"), headers: ["X-Note": "a\tb é", "X-Long": long]))
        let endings = Endings(request)
        request.start()
        _ = try await endings.value()
        let received = server.receivedRequests("/target").first
        #expect(received?.header("X-Note") == "a\tb é")
        #expect(received?.header("X-Long") == long)
    }
}
