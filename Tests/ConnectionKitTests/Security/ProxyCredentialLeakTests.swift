import ConnectionKit
import ConnectionKitTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking

    /// A GET through a class's proxy over libcurl, debug output on (which also keeps the history's body preview).
    private final class ProxyEchoProbe: ConnectionRequest<Data>, @unchecked Sendable {
        // Safe: only immutable stored properties.
        let target: URL
        let through: URL
        let chosen: ConnectionTransport
        init(_ target: URL, through proxy: URL, over transport: ConnectionTransport) {
            self.target = target
            self.through = proxy
            self.chosen = transport
        }
        override var url: URL? { target }
        override var proxy: URL? { through }
        override var transport: ConnectionTransport { chosen }
        override var isDebugOutputEnabled: Bool? { true }
    }

    /// A proxy that does not ask for the credentials a class gives it forwards libcurl's
    /// `Proxy-Authorization` to the server; a hostile server echoes it in its body. The credential is the
    /// transport's, not the request's, and must still never be shown. (Per-class proxies are libcurl's
    /// alone: URLSession refuses them before sending, see ProxyTests.)
    @Suite("Proxy credential leaks", .offThePool, .timeLimit(.minutes(2)))
    struct ProxyCredentialLeakTests {
        @Test(
            "libcurl: a proxy credential echoed by the server is scrubbed from debug output and the history (body and headers)",
            arguments: [("ckleakuser", "Pr0xyS3cretZz9"), ("ck%40user", "p%3Aass%2Fword9%2B")])
        func echoedProxyCredentialIsScrubbed(user: String, password: String) async throws {
            let libcurl = try ConnectionTransport.libcurl()
            let proxy = try await Tinyproxy.started()  // no BasicAuth: it forwards Proxy-Authorization
            defer { proxy.stop() }
            let server = try TestServer.started()
            defer { server.stop() }
            server.route("/echo") { request in
                let seen = request.header("Proxy-Authorization") ?? "none"
                // Echoed three ways: as sent, as JSON escapes it, and in the middle of text.
                let json = seen.replacingOccurrences(of: "/", with: "\\/")
                var response = TestResponse.text("header=\(seen)\njson={\"auth\":\"\(json)\"}\nend")
                response.headers.append(TestHeader("X-Echo", seen))
                return response
            }
            DebugCapture.install()
            let request = ProxyEchoProbe(
                server.url("/echo"), through: proxy.url(user: user, password: password), over: libcurl)
            let body = String(decoding: try await request.value(), as: UTF8.self)

            let decoded = "\(user.removingPercentEncoding ?? user):\(password.removingPercentEncoding ?? password)"
            let credential = Data(decoded.utf8).base64EncodedString()
            #expect(body.contains("header=Basic \(credential)"), "the hostile echo reached the app: \(body)")

            let debug = DebugCapture.blocks(for: request.identifier).joined(separator: "\n")
            let record = try #require(
                ConnectionRegistry.shared.history().last(where: { $0.identifier == request.identifier }))
            let preview = try #require(record.responseBodyPreview)
            let echoedHeader = record.responseHeaderFields.first { $0.name == "X-Echo" }?.value ?? ""
            #expect(echoedHeader == "Basic <redacted>", "the history's response header: \(echoedHeader)")
            for (place, text) in [
                ("debug output", debug), ("history preview", preview), ("history header", echoedHeader),
            ] {
                if place != "history header" {
                    #expect(text.contains("header=Basic <redacted>"), "\(place) shows the echo redacted: \(text)")
                }
                for secret in [credential, credential.replacingOccurrences(of: "/", with: "\\/")] {
                    #expect(!text.contains(secret), "\(place) leaks the proxy credential: \(text)")
                }
            }
        }
    }
#endif
