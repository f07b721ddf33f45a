import ConnectionKitTesting
import Foundation
import Testing

@testable import ConnectionKit

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A jar request with debug output on, for the privacy checks.
private final class LoudJarRequest: FetchData, @unchecked Sendable {
    // Safe: only immutable stored properties.
    let jar: CookieJar
    init(_ target: URL, jar: CookieJar) {
        self.jar = jar
        super.init(target)
    }
    override var cookieJar: CookieJar? { jar }
    override var isDebugOutputEnabled: Bool? { true }
}

/// No cookie value in any output a test can collect: debug output, the cURL command, snapshots, the
/// history and its HAR export, errors. Names may show; values never.
@Suite("Cookie values never appear in ConnectionKit's output", .offThePool, .timeLimit(.minutes(2)))
struct CookiePrivacyTests {
    @Test("a jar's cookies and the server's Set-Cookie values are redacted everywhere, on success and on failure")
    func noValueInAnyOutput() async throws {
        DebugCapture.install()
        let server = try TestServer.started()
        defer { server.stop() }
        CookieRoutes.install(on: server)
        let fromServer = "srv-\(UUID().uuidString)"
        let fromJar = "jar-\(UUID().uuidString)"
        server.route("/denied") { _ in
            TestResponse(
                status: 401, headers: [TestHeader("Set-Cookie", "late=\(fromServer)-late; Path=/")],
                body: .data(Data("no".utf8)))
        }
        let jar = CookieJar()
        jar.store(setCookie: "stored=\(fromJar); Path=/", from: server.url("/"))
        // The server sets a cookie on a 302 (not from the URL, which is no secret), and /cookies echoes every
        // cookie it got in its body.
        server.route("/login") { _ in
            var response = TestResponse.redirect(to: "/cookies")
            response.headers.append(TestHeader("Set-Cookie", "session=\(fromServer); Path=/"))
            return response
        }
        let success = LoudJarRequest(server.url("/login"), jar: jar)
        let body = try await success.value()
        #expect(String(decoding: body, as: UTF8.self).contains(fromServer), "the cookies were really sent")
        let failure = LoudJarRequest(server.url("/denied"), jar: jar)
        var errorTexts: [String] = []
        do {
            _ = try await failure.value()
            Issue.record("a 401 must fail")
        } catch {
            errorTexts = [String(describing: error), String(reflecting: error), error.localizedDescription]
        }
        #expect(jar.allCookies.contains { $0.name == "late" }, "the 401's cookie was stored")
        let history = ConnectionRegistry.shared.history().filter {
            [success.identifier, failure.identifier].contains($0.identifier)
        }
        #expect(history.count == 2)
        var dumped = ""
        dump(history, to: &dumped)
        let har = String(decoding: try ConnectionRegistry.shared.harData(), as: UTF8.self)
        let outputs =
            errorTexts + [success.cURLDescription, failure.cURLDescription, success.debugDescription, dumped, har]
            + DebugCapture.blocks(for: success.identifier) + DebugCapture.blocks(for: failure.identifier)
        #expect(!DebugCapture.blocks(for: success.identifier).isEmpty, "debug output was written")
        #expect(dumped.contains("Cookie"), "the history shows the Cookie header, redacted")
        for text in outputs {
            #expect(!text.contains(fromServer), "\(text)")
            #expect(!text.contains(fromJar), "\(text)")
        }
    }

    @Test("a body that echoes the cookie its response sets shows the value redacted (debug output, history)")
    func echoedSetCookieValueRedacted() async throws {
        DebugCapture.install()
        let server = try TestServer.started()
        defer { server.stop() }
        let session = "echoed-\(UUID().uuidString)"
        server.route("/login") { _ in
            var response = TestResponse.jsonString(#"{"session": "\#(session)"}"#)
            response.headers.append(TestHeader("Set-Cookie", "session=\(session); Path=/; HttpOnly"))
            return response
        }
        let login = LoudJarRequest(server.url("/login"), jar: CookieJar())
        let body = try await login.value()
        #expect(String(decoding: body, as: UTF8.self).contains(session), "the body really echoes it")
        var dumped = ""
        dump(ConnectionRegistry.shared.history().filter { $0.identifier == login.identifier }, to: &dumped)
        let blocks = DebugCapture.blocks(for: login.identifier)
        #expect(blocks.count >= 2, "a request block and a response block")
        #expect(dumped.contains("<redacted>"))
        for text in blocks + [dumped] {
            #expect(!text.contains(session), "\(text)")
        }
    }
    @Test("a cookie set beside a nameless Set-Cookie line has its value redacted in a body that echoes it")
    func cookieBesideNamelessLineRedacted() async throws {
        DebugCapture.install()
        let server = try TestServer.started()
        defer { server.stop() }
        let session = "beside-\(UUID().uuidString)"
        server.route("/login") { _ in
            var response = TestResponse.jsonString(#"{"session": "\#(session)"}"#)
            // Joined with ", ", the nameless line reads as the rest of the session cookie's value.
            response.headers.append(TestHeader("Set-Cookie", "session=\(session)"))
            response.headers.append(TestHeader("Set-Cookie", "nameless-marker"))
            return response
        }
        let login = LoudJarRequest(server.url("/login"), jar: CookieJar())
        let body = try await login.value()
        #expect(String(decoding: body, as: UTF8.self).contains(session), "the body really echoes it")
        var dumped = ""
        dump(ConnectionRegistry.shared.history().filter { $0.identifier == login.identifier }, to: &dumped)
        let blocks = DebugCapture.blocks(for: login.identifier)
        #expect(blocks.count >= 2, "a request block and a response block")
        for text in blocks + [dumped] {
            #expect(!text.contains(session), "\(text)")
        }
    }
}
