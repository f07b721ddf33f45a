import ConnectionKit
import ConnectionKitTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking

    /// What the libcurl transport does with connections, cookies, request bodies and oversized headers.
    @Suite(
        "The libcurl transport: connections, cookies, request bodies, header size", .offThePool,
        .timeLimit(.minutes(10)), .exclusive
    )
    struct CurlConnectionTests {
        @Test("libcurl: 20 sequential requests to one server use one connection")
        func sequentialRequestsReuseOneConnection() async throws {
            let libcurl = try ConnectionTransport.libcurl()
            let server = try TestServer.started()
            defer { server.stop() }
            server.route("/n") { _ in .text("n") }
            for _ in 0..<20 {
                _ = try await OverTransport(server.url("/n"), over: libcurl).value()
            }
            #expect(server.hits("/n") == 20)
            #expect(server.acceptedConnectionCount == 1)
            #expect(Set(server.receivedRequests("/n").map(\.connectionID)).count == 1)
        }

        @Test("libcurl: 70 requests at once to one server open at most 64 connections, the documented per-host limit")
        func perHostLimit() async throws {
            let libcurl = try ConnectionTransport.libcurl()
            let server = try TestServer.started()
            defer { server.stop() }
            // Slow enough that all 70 are in flight together, even on a loaded machine: then exactly the
            // limit's 64 connections open, and the other 6 requests wait for one of them.
            server.route("/slow") { _ in TestResponse(body: .data(Data("s".utf8)), delayBeforeHeaders: 3) }
            try await withThrowingTaskGroup(of: Data.self) { group in
                for _ in 0..<70 {
                    group.addTask { try await OverTransport(server.url("/slow"), over: libcurl).value() }
                }
                for try await body in group { #expect(body == Data("s".utf8)) }
            }
            let connections = Set(server.receivedRequests("/slow").map(\.connectionID))
            #expect(server.hits("/slow") == 70)
            // 64, not fewer (a lower limit) nor more (70 would be one per request: no limit).
            #expect(connections.count == 64, "\(connections.count) connections")
            #expect(server.acceptedConnectionCount == connections.count)
        }

        @Test("libcurl: 10 MB of response headers end in responseTooLarge, and the next request works")
        func tenMegabytesOfHeaders() async throws {
            let libcurl = try ConnectionTransport.libcurl()
            let server = try TestServer.started()
            defer { server.stop() }
            server.route("/huge") { _ in
                TestResponse(body: .data(Data("ok".utf8)), fault: .hugeHeaders(bytes: 10_000_000))
            }
            server.route("/fine") { _ in .text("fine") }
            do {
                let body = try await OverTransport(server.url("/huge"), over: libcurl).value()
                Issue.record("expected responseTooLarge, got \(body.count) bytes")
            } catch let error as ConnectionError {
                guard case .responseTooLarge = error.kind else {
                    Issue.record("expected responseTooLarge, got \(error)")
                    return
                }
            }
            let fine = try await OverTransport(server.url("/fine"), over: libcurl).value()
            #expect(fine == Data("fine".utf8))
        }

        @Test("libcurl: no cookie engine, a Set-Cookie is not sent back")
        func noCookieEngine() async throws {
            let libcurl = try ConnectionTransport.libcurl()
            let server = try TestServer.started()
            defer { server.stop() }
            server.route("/login") { _ in
                TestResponse(
                    headers: [TestHeader("Set-Cookie", "session=abc123; Path=/")], body: .data(Data("ok".utf8)))
            }
            server.route("/after") { _ in .text("after") }
            let login = OverTransport(server.url("/login"), over: libcurl)
            _ = try await login.value()
            #expect(login.urlResponse?.value(forHTTPHeaderField: "Set-Cookie") == "session=abc123; Path=/")
            _ = try await OverTransport(server.url("/after"), over: libcurl).value()
            let after = try #require(server.receivedRequests("/after").last)
            #expect(after.header("Cookie") == nil)
        }

        @Test("libcurl: a 2 MiB POST arrives whole without an Expect: 100-continue header")
        func largePostWithoutExpect() async throws {
            let libcurl = try ConnectionTransport.libcurl()
            let server = try TestServer.started()
            defer { server.stop() }
            server.route("/upload") { request in .text("\(request.body.count)") }
            let body = Data((0..<(2 << 20)).map { UInt8(truncatingIfNeeded: $0) })
            let reply = try await OverTransport(server.url("/upload"), body: body, over: libcurl).value()
            #expect(String(decoding: reply, as: UTF8.self) == "\(body.count)")
            let received = try #require(server.receivedRequests("/upload").last)
            #expect(received.header("Expect") == nil)
            #expect(received.body == body)
        }
    }
#endif
