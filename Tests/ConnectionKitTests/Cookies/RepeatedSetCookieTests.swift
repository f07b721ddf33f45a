import ConnectionKit
import ConnectionKitTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A request that keeps the response its `validate` hook saw.
private final class ResponseKeepingRequest: FetchData, @unchecked Sendable {
    // Safe: `seen` is a lock box; `jar` is immutable.
    let seen = Locked<ConnectionResponse?>(nil)
    let jar: CookieJar?
    init(_ target: URL, jar: CookieJar? = nil) {
        self.jar = jar
        super.init(target)
    }
    override var cookieJar: CookieJar? { jar }
    override func validate(_ response: ConnectionResponse, data: Data?) throws {
        seen.withLock { $0 = response }
        try super.validate(response, data: data)
    }
}

/// Repeated `Set-Cookie` fields through a real response (RFC 6265 §3, RFC 9110 §5.3: never folded): kept
/// apart on libcurl, split again as a browser splits them on URLSession. Run on both transports
/// (`CONNECTIONKIT_TEST_TRANSPORT=libcurl` for libcurl).
@Suite("Repeated Set-Cookie fields", .offThePool, .timeLimit(.minutes(2)))
struct RepeatedSetCookieTests {
    private static var onLibcurl: Bool { ConnectionTransport.default.name == "libcurl" }

    /// The Set-Cookie lines the route sends, in order: a quoted value holding `, baz=`, an `Expires` date,
    /// a nameless line (ignored by RFC 6265 §5.2) and two cookies whose names sort against their order.
    private static let setCookieLines = [
        "foo=\"bar, baz=qux\"", "dated=1; Expires=Wed, 21 Oct 2099 07:28:00 GMT", "six", "zeta=2", "alpha=3",
    ]

    private func serverSettingCookies() throws -> TestServer {
        let server = try TestServer.started()
        server.route("/set") { _ in
            var response = TestResponse.text("set")
            for line in Self.setCookieLines { response.headers.append(TestHeader("Set-Cookie", line)) }
            response.headers.append(TestHeader("X-Repeated", "one"))
            response.headers.append(TestHeader("X-Repeated", "two"))
            return response
        }
        server.route("/echo") { request in .text(request.header("Cookie") ?? "") }
        return server
    }

    @Test("the jar stores each Set-Cookie field of one response apart and sends them back in creation order")
    func jarKeepsFieldsApart() async throws {
        let server = try serverSettingCookies()
        defer { server.stop() }
        let jar = CookieJar()
        _ = try await ResponseKeepingRequest(server.url("/set"), jar: jar).value()
        let sent = String(
            decoding: try await ResponseKeepingRequest(server.url("/echo"), jar: jar).value(), as: UTF8.self)
        if Self.onLibcurl {
            #expect(sent == "foo=\"bar, baz=qux\"; dated=1; zeta=2; alpha=3")
        } else {
            // FoundationNetworking joined the lines with ", ": the quoted comma and the nameless line
            // cannot be told from a field boundary (docs/linux.md), the date and the order can.
            #expect(sent.contains("dated=1"), "\(sent)")
            #expect(sent.hasSuffix("zeta=2; alpha=3"), "\(sent)")
        }
        #expect(jar.cookies(for: server.url("/echo")).contains { $0.name == "dated" && $0.expires != nil })
    }

    @Test("the response value lists the field lines in order, repeats apart, and joins the rest")
    func responseValueKeepsLinesApart() async throws {
        let server = try serverSettingCookies()
        defer { server.stop() }
        let request = ResponseKeepingRequest(server.url("/set"))
        _ = try await request.value()
        let response = try #require(request.seen.withLock { $0 })
        #expect(response.value(forHTTPHeaderField: "x-repeated") == "one, two")
        #expect(response.keepsRepeatedFieldsApart == Self.onLibcurl)
        if Self.onLibcurl {
            #expect(response.values(forHTTPHeaderField: "set-cookie") == Self.setCookieLines)
            #expect(response.values(forHTTPHeaderField: "X-Repeated") == ["one", "two"])
            let lines = response.headerFieldLines.filter { $0.name == "Set-Cookie" || $0.name == "X-Repeated" }
            #expect(
                lines.map(\.value) == Self.setCookieLines + ["one", "two"],
                "a handler sees the repeated fields in the order sent")
        } else {
            #expect(response.values(forHTTPHeaderField: "X-Repeated") == ["one, two"])
            // The ambiguity docs/linux.md lists: the quoted comma splits, the nameless line is glued on.
            #expect(
                response.values(forHTTPHeaderField: "Set-Cookie") == [
                    "foo=\"bar", "baz=qux\"", "dated=1; Expires=Wed, 21 Oct 2099 07:28:00 GMT, six", "zeta=2",
                    "alpha=3",
                ])
        }
    }

    @Test("a response made of field lines reads each Set-Cookie apart; one made of a dictionary splits it")
    func madeResponses() {
        let url = URL(string: "https://example.com/")
        let lines = Self.setCookieLines.map { ResponseHeaderField(name: "Set-Cookie", value: $0) }
        let apart = ConnectionResponse(url: url, statusCode: 200, headerFieldLines: lines)
        #expect(apart.values(forHTTPHeaderField: "SET-COOKIE") == Self.setCookieLines)
        #expect(apart.headerFieldLines == lines)
        let joined = ConnectionResponse(
            url: url, statusCode: 200, headerFields: ["Set-Cookie": "a=1; Expires=Wed, 21 Oct 2099 07:28:00 GMT, b=2"])
        #expect(
            joined.values(forHTTPHeaderField: "set-cookie") == ["a=1; Expires=Wed, 21 Oct 2099 07:28:00 GMT", "b=2"])
        #expect(joined.values(forHTTPHeaderField: "X-None").isEmpty)
    }
}
