#if canImport(Glibc)
    import ConnectionKit
    import Foundation
    import Glibc
    import Testing

    /// One request to the hostile server over the transport it is given.
    final class ReuseProbe: ConnectionRequest<Data>, @unchecked Sendable {
        // Safe: only immutable stored properties.
        let target: URL
        let method: HTTPMethod
        let chosen: ConnectionTransport

        init(_ target: URL, method: HTTPMethod = .get, over transport: ConnectionTransport) {
            self.target = target
            self.method = method
            self.chosen = transport
        }

        override var url: URL? { target }
        override var httpMethod: HTTPMethod { method }
        override var transport: ConnectionTransport { chosen }
        override var timeoutInterval: TimeInterval { 60 }  // bounds a failure only
    }

    /// A keep-alive connection whose server sends bytes after a complete response must not carry the
    /// next request: libcurl before 8.0 would read those bytes as that request's answer. ConnectionKit's
    /// libcurl transport looks at a pooled connection before it sends on it (docs/security.md).
    /// URLSession's pool is out of ConnectionKit's reach (docs/linux.md), hence libcurl only.
    @Suite("Poisoned keep-alive connections (libcurl)", .offThePool, .timeLimit(.minutes(1)))
    struct PoisonedConnectionTests {
        /// The complete first answer the stray bytes follow.
        enum FirstAnswer: String, CaseIterable, Sendable, CustomTestStringConvertible {
            case contentLength, noContent, head
            var testDescription: String { rawValue }
        }

        /// Answers every request with its own path as the body; after the first response of the first
        /// connection, and `straysAfter` later, writes a whole second response ("POISONED").
        static func serve(
            _ connection: RawLoopbackServer.Connection, first: FirstAnswer, straysAfter: TimeInterval?,
            written: DispatchSemaphore
        ) {
            var answered = 0
            while let head = connection.readHead() {
                let path = RawLoopbackServer.Connection.requestLine(of: head).path
                defer { answered += 1 }
                guard connection.number == 1, answered == 0 else {
                    connection.write("HTTP/1.1 200 OK\r\nContent-Length: \(path.utf8.count)\r\n\r\n\(path)")
                    continue
                }
                switch first {
                case .contentLength: connection.write("HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\n/first")
                case .noContent: connection.write("HTTP/1.1 204 No Content\r\n\r\n")
                case .head: connection.write("HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\n")
                }
                guard let straysAfter else { continue }
                // The client has its whole answer by now and puts the connection back in its pool.
                usleep(useconds_t(straysAfter * 1_000_000))
                connection.write("HTTP/1.1 200 OK\r\nContent-Length: 8\r\n\r\nPOISONED")
                written.signal()
            }
        }

        /// A libcurl client of the test's own. The shared transport's pool serves every test running in
        /// parallel, and their connections can displace this test's idle one, which reads as a new connection.
        static func clientOfItsOwn() throws -> ConnectionClient {
            try ConnectionClient(checking: .libcurl, label: "poisoned")
        }

        @Test(
            "bytes sent 200 ms after a complete response never answer a later request",
            arguments: FirstAnswer.allCases)
        func straysNeverAnswerTheNextRequest(first: FirstAnswer) async throws {
            let client = try Self.clientOfItsOwn()
            let transport = client.transport
            let written = DispatchSemaphore(value: 0)
            let server = try RawLoopbackServer { connection in
                Self.serve(connection, first: first, straysAfter: 0.2, written: written)
            }
            let method: HTTPMethod = first == .head ? .head : .get
            _ = try await ReuseProbe(server.url.appendingPathComponent("first"), method: method, over: transport)
                .value()
            let strayed = await written.signalled(within: 10)
            #expect(strayed, "the server wrote its stray response")
            for path in ["second", "third"] {
                let body = try await ReuseProbe(server.url.appendingPathComponent(path), over: transport).value()
                #expect(String(decoding: body, as: UTF8.self) == "/\(path)", "each request gets its own answer")
            }
            #expect(server.connectionCount == 2, "the poisoned connection is replaced once, the new one reused")
            await client.shutdown()
        }

        @Test("a clean pooled connection is still reused")
        func cleanConnectionIsReused() async throws {
            let client = try Self.clientOfItsOwn()
            let transport = client.transport
            let written = DispatchSemaphore(value: 0)
            let server = try RawLoopbackServer { connection in
                Self.serve(connection, first: .contentLength, straysAfter: nil, written: written)
            }
            for path in ["first", "second", "third"] {
                let body = try await ReuseProbe(server.url.appendingPathComponent(path), over: transport).value()
                #expect(String(decoding: body, as: UTF8.self) == "/\(path)")
            }
            #expect(server.connectionCount == 1, "three requests, one connection")
            await client.shutdown()
        }
    }
#endif
