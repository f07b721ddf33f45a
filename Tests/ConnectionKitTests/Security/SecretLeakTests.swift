import ConnectionKit
import ConnectionKitTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// No secret in any error: reasons, underlying transport errors, redirects to other origins, and
/// query items after a `;` separator.
@Suite(.offThePool, .timeLimit(.minutes(2))) struct SecretLeakTests {
    private static let password = "hunter2-password"
    private static let token = "s3cret-query-token"

    /// Everything a URL-less failure shows: the error in every rendering, the debug output and the cURL string.
    @Test(arguments: [
        "http://user:\(password)@/path?token=\(token)", "http://user:\(password)@:8080/x?a=1&token=\(token)",
        "http:///path?token=\(token)", "http:///path?a=1;token=\(token)",
    ])
    func aURLWithoutAHostFailsWithARedactedReason(text: String) async throws {
        DebugCapture.install()
        let url = try #require(URL(string: text))
        let request = HostileRequest(HostileHooks(url: url, secretQuery: ["token"], debugOutput: true))
        let curl = request.cURLDescription
        let error = try await failure(of: request)
        let reason = invalidRequestReason(error)
        #expect(reason.contains("no host"), "\(reason)")
        let shown = everyRendering(of: error) + [curl] + DebugCapture.blocks(for: request.identifier)
        #expect(DebugCapture.blocks(for: request.identifier).isEmpty == false, "debug output was written")
        for text in shown {
            #expect(!text.contains(Self.password), "\(text)")
            #expect(!text.contains(Self.token), "\(text)")
        }
        #expect(reason.contains("<redacted>"), "the URL is shown redacted: \(reason)")
    }

    /// Every string reachable from a transport error's user info, nested errors included.
    private func reachableText(of error: any Error, depth: Int = 0) -> [String] {
        let nsError = error as NSError
        var texts = [String(describing: error), String(reflecting: error), nsError.localizedDescription]
        guard depth < 5 else { return texts }
        for (key, value) in nsError.userInfo {
            texts.append(key)
            if let nested = value as? any Error {
                texts += reachableText(of: nested, depth: depth + 1)
            } else {
                texts.append(String(describing: value))
            }
        }
        return texts
    }

    @Test func aTransportFailureExposesNoUnredactedURL() async throws {
        // Bound and not listening, and held for the whole test: "connection refused", and no parallel
        // test's server can take the port meanwhile (a stopped server's port could be).
        let refusing = try LoopbackPort(reusable: false)
        defer { refusing.release() }
        let port = refusing.port
        let url = try #require(URL(string: "http://user:\(Self.password)@127.0.0.1:\(port)/p?token=\(Self.token)"))
        let error = try await failure(of: HostileRequest(HostileHooks(url: url, secretQuery: ["token"])))
        guard let urlError = error.urlError else {
            Issue.record("expected a transport error, got \(error.debugDescription)")
            return
        }
        var dumped = ""
        dump(error, to: &dumped)
        let texts =
            everyRendering(of: error) + reachableText(of: urlError) + [dumped, String(reflecting: error.kind)]
            + [urlError.failingURL?.absoluteString ?? ""] + (error.underlyingError.map { reachableText(of: $0) } ?? [])
        for text in texts {
            #expect(!text.contains(Self.password), "\(text)")
            #expect(!text.contains(Self.token), "\(text)")
        }
        #expect(urlError.code == .cannotConnectToHost)
        #expect(urlError.failingURL?.host == "127.0.0.1", "the failing URL is kept, redacted")
    }

    // MARK: - Secret headers across redirects

    /// Redirects `/start` on `origin` to `/land` at `targetBase` and returns what `/land` received.
    private func landed(from origin: TestServer, to targetBase: String, target: TestServer) async throws
        -> TestRequest?
    {
        origin.route("/start") { _ in .redirect(to: targetBase + "/land") }
        target.route("/land") { _ in .text("landed") }
        let hooks = HostileHooks(
            url: origin.url("/start"), headers: ["X-Api-Key": "sk-live-123", "X-Session": "abc", "X-Trace": "kept"],
            secretHeaders: ["x-api-key", "X-SESSION"])
        let request = HostileRequest(hooks)
        let endings = Endings(request)
        request.start()
        #expect(try await endings.value() == Data("landed".utf8))
        #expect(origin.receivedRequests("/start").first?.header("X-Api-Key") == "sk-live-123")
        return target.receivedRequests("/land").first
    }

    @Test func aSecretHeaderIsDroppedOnARedirectToAnotherOrigin() async throws {
        let origin = try TestServer.started()
        let other = try TestServer.started()
        defer {
            origin.stop()
            other.stop()
        }
        let received = try #require(try await landed(from: origin, to: "http://127.0.0.1:\(other.port)", target: other))
        #expect(received.header("X-Api-Key") == nil)
        #expect(received.header("X-Session") == nil)
        #expect(received.header("X-Trace") == "kept")
    }

    @Test func aSecretHeaderIsKeptOnARedirectWithinTheOrigin() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        let received = try #require(try await landed(from: server, to: "", target: server))
        #expect(received.header("X-Api-Key") == "sk-live-123")
        #expect(received.header("X-Session") == "abc")
    }

    // MARK: - `;` separated query items

    @Test func aSecretQueryItemAfterASemicolonIsRedacted() async throws {
        DebugCapture.install()
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/q") { request in .text("echo: \(request.query ?? "")", status: 500) }
        let url = server.url("/q?a=1;token=\(Self.token);b=2")
        let request = HostileRequest(HostileHooks(url: url, secretQuery: ["token"], debugOutput: true))
        let curl = request.cURLDescription
        let error = try await failure(of: request)
        #expect(error.statusCode == 500)
        let shown =
            everyRendering(of: error) + [curl, request.debugDescription] + DebugCapture.blocks(for: request.identifier)
        for text in shown {
            #expect(!text.contains(Self.token), "\(text)")
        }
        #expect(error.redactedURL?.hasSuffix("?a=1;token=<redacted>;b=2") == true, "\(error.redactedURL ?? "-")")
        #expect(DebugCapture.blocks(for: request.identifier).count == 2, "request and response blocks")
    }
}
