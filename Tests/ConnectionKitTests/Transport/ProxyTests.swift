import ConnectionKit
import ConnectionKitTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking

    /// A GET through `proxy` over the transport it is given, whatever CONNECTIONKIT_TEST_TRANSPORT says,
    /// with debug output on.
    private final class ProxiedProbe: ConnectionRequest<Data>, @unchecked Sendable {
        // Safe: only immutable stored properties.
        let target: URL
        let through: URL?
        let chosen: ConnectionTransport
        init(_ target: URL, through proxy: URL?, over transport: ConnectionTransport) {
            self.target = target
            self.through = proxy
            self.chosen = transport
        }
        override var url: URL? { target }
        override var proxy: URL? { through }
        override var transport: ConnectionTransport { chosen }
        override var isDebugOutputEnabled: Bool? { true }
    }

    /// The per-class proxy, through a real tinyproxy started by each test.
    @Suite("Proxies", .offThePool, .timeLimit(.minutes(10)), .exclusive)
    struct ProxyTests {
        private static let user = "ckproxyuser"
        private static let password = "Pr0xyPassw0rdXyz"

        @Test(
            "libcurl: a class's proxy carries the request (tinyproxy's Via header and log), and its credentials never show in debug output"
        )
        func throughTheProxy() async throws {
            let libcurl = try ConnectionTransport.libcurl()
            let proxy = try await Tinyproxy.started(basicAuth: (Self.user, Self.password))
            defer { proxy.stop() }
            let server = try TestServer.started()
            defer { server.stop() }
            server.route("/hello") { _ in .text("hello") }
            DebugCapture.install()

            let request = ProxiedProbe(
                server.url("/hello"), through: proxy.url(user: Self.user, password: Self.password), over: libcurl)
            let body = try await request.value()
            #expect(String(decoding: body, as: UTF8.self) == "hello")
            let received = try #require(server.receivedRequests("/hello").last)
            #expect(received.header("Via")?.contains(proxy.viaName) == true)
            #expect(received.header("Proxy-Authorization") == nil, "the proxy's credentials stop at the proxy")
            #expect(await proxy.logged("GET \(server.url("/hello").absoluteString)"))
            #expect(request.metrics.last?.remotePort == proxy.port, "the connection is the proxy's")

            let output = DebugCapture.blocks(for: request.identifier).joined(separator: "\n")
            #expect(output.contains("\n  proxy: http://127.0.0.1:\(proxy.port) (credentials <redacted>)\n"))
            #expect(!output.contains(Self.password))
            #expect(!output.contains(Self.user))
        }

        @Test(
            "libcurl: wrong proxy credentials end in the proxy's refusal (tinyproxy answers 401), and the error does not quote them"
        )
        func wrongCredentials() async throws {
            let libcurl = try ConnectionTransport.libcurl()
            let proxy = try await Tinyproxy.started(basicAuth: (Self.user, Self.password))
            defer { proxy.stop() }
            let server = try TestServer.started()
            defer { server.stop() }
            server.route("/hello") { _ in .text("hello") }
            let wrong = "Wr0ngPassw0rdAbc"
            let request = ProxiedProbe(
                server.url("/hello"), through: proxy.url(user: Self.user, password: wrong), over: libcurl)
            let error = try await connectionError(of: request)
            #expect(error.statusCode == 401)
            #expect(
                await proxy.logged("GET \(server.url("/hello").absoluteString)"), "the request reached the proxy")
            #expect(server.hits("/hello") == 0)
            let text = "\(error) \(error.localizedDescription) \(String(reflecting: error))"
            #expect(!text.contains(wrong))
        }

        @Test("libcurl: an unreachable proxy is a transport error that quotes neither its user name nor its password")
        func unreachableProxy() async throws {
            let libcurl = try ConnectionTransport.libcurl()
            // Bound and not listening: connections to it are refused.
            let closed = try PortReservation()
            let server = try TestServer.started()
            defer { server.stop() }
            server.route("/hello") { _ in .text("hello") }
            DebugCapture.install()
            let proxyURL = try #require(URL(string: "http://\(Self.user):\(Self.password)@127.0.0.1:\(closed.port)"))
            let request = ProxiedProbe(server.url("/hello"), through: proxyURL, over: libcurl)
            let error = try await connectionError(of: request)
            guard let urlError = error.urlError else {
                Issue.record("expected a transport error, got \(error)")
                return
            }
            #expect(urlError.code == .cannotConnectToHost)
            #expect(server.hits("/hello") == 0)
            let text = [
                "\(error)", error.localizedDescription, String(reflecting: error), urlError.localizedDescription,
                DebugCapture.blocks(for: request.identifier).joined(separator: "\n"),
            ].joined(separator: "\n")
            #expect(!text.contains(Self.password))
            #expect(!text.contains(Self.user))
        }

        @Test(
            "URLSession: a class's proxy fails with invalidRequest naming the libcurl transport, before anything is sent"
        )
        func urlSessionRefusesAProxy() async throws {
            let server = try TestServer.started()
            defer { server.stop() }
            server.route("/hello") { _ in .text("hello") }
            let proxyURL = try #require(URL(string: "http://\(Self.user):\(Self.password)@127.0.0.1:9"))
            let request = ProxiedProbe(server.url("/hello"), through: proxyURL, over: .urlSession)
            let error = try await connectionError(of: request)
            guard let reason = error.reason else {
                Issue.record("expected invalidRequest, got \(error)")
                return
            }
            #expect(reason.contains("libcurl"))
            #expect(!reason.contains(Self.password))
            #expect(server.hits("/hello") == 0)
            #expect(request.attempt == 1, "not retried")
        }

        @Test("a proxy URL that is not a proxy's fails with invalidRequest before anything is sent")
        func notAProxyURL() async throws {
            let libcurl = try ConnectionTransport.libcurl()
            let server = try TestServer.started()
            defer { server.stop() }
            server.route("/hello") { _ in .text("hello") }
            let proxyURL = try #require(URL(string: "ftp://127.0.0.1:21"))
            let request = ProxiedProbe(server.url("/hello"), through: proxyURL, over: libcurl)
            let error = try await connectionError(of: request)
            guard let reason = error.reason else {
                Issue.record("expected invalidRequest, got \(error)")
                return
            }
            #expect(reason.contains("not a proxy URL"))
            #expect(server.hits("/hello") == 0)
        }

        /// The request's failure as a `ConnectionError`; records an issue on success.
        private func connectionError(of request: ProxiedProbe) async throws -> ConnectionError {
            do {
                let body = try await request.value()
                Issue.record("expected a failure, got \(body.count) bytes")
                throw TinyproxyError(message: "no failure")
            } catch let error as ConnectionError {
                return error
            }
        }
    }
#endif

#if canImport(FoundationNetworking)
    /// `http_proxy` and `no_proxy` as `curl` reads them: libcurl applies them itself, and ConnectionKit's
    /// libcurl transport leaves them alone when no class proxy is set. In a child process, whose
    /// environment is its own (libcurl reads it at each transfer, so setting it here would reroute
    /// the other tests' requests).
    @Suite("Proxies from the environment", .offThePool, .timeLimit(.minutes(10)), .exclusive)
    struct EnvironmentProxyTests {
        @Test(
            "libcurl: http_proxy routes a request through the proxy, and no_proxy exempts the host",
            arguments: [false, true])
        func environment(exempt: Bool) async throws {
            let proxy = try await Tinyproxy.started()
            defer { proxy.stop() }
            let server = try TestServer.started()
            defer { server.stop() }
            server.route("/hello") { _ in .text("hello") }

            var environment = ProcessInfo.processInfo.environment.filter { !$0.key.lowercased().hasSuffix("_proxy") }
            environment["http_proxy"] = proxy.url().absoluteString
            if exempt { environment["no_proxy"] = "127.0.0.1" }
            let child = try ChildProcess(
                ["get-over-libcurl", server.url("/hello").absoluteString], environment: environment)
            let (status, printed) = await child.finish(timeout: 30)
            #expect(status == 0)
            #expect(printed.contains("STATUS 200\n"), "\(printed)")
            let via = server.receivedRequests("/hello").last?.header("Via")
            if exempt {
                #expect(via == nil)
                #expect(printed.contains("REMOTE 127.0.0.1:\(server.port)\n"))
            } else {
                #expect(via?.contains(proxy.viaName) == true)
                #expect(printed.contains("REMOTE 127.0.0.1:\(proxy.port)\n"))
            }
        }
    }
#endif
