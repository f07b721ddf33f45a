import ConnectionKit
import ConnectionKitTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking

    /// A request that always goes over libcurl, whatever the process-wide default (the per-class hook).
    private final class OverLibcurl: ConnectionRequest<Data>, @unchecked Sendable {
        // Safe: only immutable stored properties.
        let target: URL
        let idleTimeout: TimeInterval
        init(_ target: URL, idleTimeout: TimeInterval = 60) {
            self.target = target
            self.idleTimeout = idleTimeout
        }
        override var url: URL? { target }
        override var timeoutInterval: TimeInterval { idleTimeout }
        override var transport: ConnectionTransport {
            // Never URLSession in libcurl's place: without libcurl, `makeURLRequest()` fails the request.
            (try? .libcurl()) ?? .urlSession
        }

        /// Fails the request, naming why, when libcurl cannot load: a test of libcurl must not pass on URLSession.
        override func makeURLRequest() throws -> URLRequest {
            _ = try ConnectionTransport.libcurl()
            return try super.makeURLRequest()
        }
    }

    /// Servers that crash or hang URLSession on Linux end in typed errors over libcurl, and the
    /// transport keeps working after them.
    @Suite("The libcurl transport", .offThePool, .timeLimit(.minutes(10)), .exclusive)
    struct CurlTransportTests {
        @Test("libcurl loads on this machine and names itself")
        func loads() throws {
            let transport = try ConnectionTransport.libcurl()
            #expect(transport.name == "libcurl")
            #expect(ConnectionTransport.urlSession.name == "URLSession")
        }

        @Test("CONNECTIONKIT_TEST_TRANSPORT picks the default transport of the test process")
        func environmentPicksTheDefault() {
            let asked = ProcessInfo.processInfo.environment["CONNECTIONKIT_TEST_TRANSPORT"]
            #expect(ConnectionTransport.default.name == (asked == "libcurl" ? "libcurl" : "URLSession"))
        }

        @Test("a body sent from memory and a response body arrive intact over libcurl")
        func roundTrip() async throws {
            let server = try TestServer.started()
            defer { server.stop() }
            server.route("/echo") { request in .text("\(request.method) \(request.body.count)") }
            let request = PostOverLibcurl(server.url("/echo"), body: Data(repeating: 7, count: 300_000))
            let body = try await Endings(request).valueAfterStart(request)
            #expect(String(decoding: body, as: UTF8.self) == "PUT 300000")
            #expect(server.receivedRequests("/echo").last?.header("Expect") == nil)
        }

        @Test(
            "a status line then a close is a networkConnectionLost transport error (URLSession traps), and the next request works",
            arguments: ["HTTP/1.1 200 OK\r\n", "HTTP/1.1 200 OK\r\nContent-Ty"])
        func statusLineThenClose(bytes: String) async throws {
            let server = try TestServer.started()
            defer { server.stop() }
            server.route("/cut") { _ in TestResponse(fault: .raw(Data(bytes.utf8))) }
            server.route("/fine") { _ in .text("fine") }
            let cut = OverLibcurl(server.url("/cut"))
            let error = try await Endings(cut).connectionErrorAfterStart(cut)
            guard let urlError = error.urlError else {
                Issue.record("expected a transport error, got \(error)")
                return
            }
            #expect(urlError.code == .networkConnectionLost)
            #expect(cut.urlResponse == nil)
            try await expectFine(server)
        }

        @Test("a server that never answers ends in timedOut, and the next request works")
        func neverAnswers() async throws {
            let server = try TestServer.started()
            defer { server.stop() }
            server.route("/hang") { _ in TestResponse(fault: .neverRespond) }
            server.route("/fine") { _ in .text("fine") }
            let hang = OverLibcurl(server.url("/hang"), idleTimeout: 0.5)
            let error = try await Endings(hang).connectionErrorAfterStart(hang)
            guard case .timedOut = error.kind else {
                Issue.record("expected timedOut, got \(error)")
                return
            }
            try await expectFine(server)
        }

        @Test("a cancel mid-transfer ends the request as cancelled, and the next request works")
        func cancelMidTransfer() async throws {
            let server = try TestServer.started()
            defer { server.stop() }
            server.route("/stall") { _ in TestResponse(fault: .neverFinishHeaders) }
            server.route("/fine") { _ in .text("fine") }
            let stalled = OverLibcurl(server.url("/stall"))
            let endings = Endings(stalled)
            stalled.start()
            stalled.cancel()
            let error = try await endings.connectionError()
            guard case .cancelled = error.kind else {
                Issue.record("expected cancelled, got \(error)")
                return
            }
            try await expectFine(server)
            #expect(endings.count == 1)
        }

        @Test(
            "an absurd Content-Length (URLSession traps) or two conflicting ones end in a typed error, and the next request works",
            arguments: [
                "Content-Length: 9223372036854775807\r\n", "Content-Length: 2\r\nContent-Length: 5\r\n",
            ])
        func badContentLength(header: String) async throws {
            let server = try TestServer.started()
            defer { server.stop() }
            let head = "HTTP/1.1 200 OK\r\n\(header)Connection: close\r\n\r\nok"
            server.route("/bad") { _ in TestResponse(fault: .raw(Data(head.utf8))) }
            server.route("/fine") { _ in .text("fine") }
            let bad = OverLibcurl(server.url("/bad"))
            let error = try await Endings(bad).connectionErrorAfterStart(bad)
            switch error.kind {
            case .transport, .responseTooLarge: break
            default: Issue.record("expected a transport or responseTooLarge error, got \(error)")
            }
            try await expectFine(server)
        }

        @Test("bytes after the declared body are not part of it, and the next request works")
        func bytesAfterTheBody() async throws {
            let server = try TestServer.started()
            defer { server.stop() }
            let response = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokEXTRA BYTES"
            server.route("/extra") { _ in TestResponse(fault: .raw(Data(response.utf8))) }
            server.route("/fine") { _ in .text("fine") }
            let extra = OverLibcurl(server.url("/extra"))
            let body = try await Endings(extra).valueAfterStart(extra)
            #expect(String(decoding: body, as: UTF8.self) == "ok")
            try await expectFine(server)
        }

        private func expectFine(_ server: TestServer) async throws {
            let next = OverLibcurl(server.url("/fine"))
            let body = try await Endings(next).valueAfterStart(next)
            #expect(String(decoding: body, as: UTF8.self) == "fine")
            #expect(next.urlResponse?.statusCode == 200)
        }
    }

    /// A PUT with a body in memory, over libcurl.
    private final class PostOverLibcurl: ConnectionRequest<Data>, @unchecked Sendable {
        // Safe: only immutable stored properties.
        let target: URL
        let payload: Data
        init(_ target: URL, body: Data) {
            self.target = target
            self.payload = body
        }
        override var url: URL? { target }
        override var httpMethod: HTTPMethod { .put }
        override var bodyData: Data? { payload }
        override var transport: ConnectionTransport { (try? .libcurl()) ?? .urlSession }

        /// Fails the request, naming why, when libcurl cannot load: a test of libcurl must not pass on URLSession.
        override func makeURLRequest() throws -> URLRequest {
            _ = try ConnectionTransport.libcurl()
            return try super.makeURLRequest()
        }
    }

    extension Endings {
        /// Starts `request` and returns its value.
        fileprivate func valueAfterStart(_ request: AnyConnectionRequest) async throws -> Output {
            request.start()
            return try await value()
        }
    }
#endif
