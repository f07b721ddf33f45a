import ConnectionKitTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite(.timeLimit(.minutes(2))) struct FaultTests {
    private static let hundredBytes = Data(repeating: 0x61, count: 100)

    private func serve(_ response: TestResponse) throws -> (TestServer, RawHTTPClient) {
        let server = try TestServer.started()
        server.route("/fault") { _ in response }
        let client = try RawHTTPClient(port: server.port)
        try client.sendGET("/fault")
        return (server, client)
    }

    private func split(_ bytes: Data) -> (head: String, body: Data) {
        guard let end = bytes.range(of: Data("\r\n\r\n".utf8)) else {
            return (String(decoding: bytes, as: UTF8.self), Data())
        }
        return (String(decoding: bytes[..<end.lowerBound], as: UTF8.self), Data(bytes[end.upperBound...]))
    }

    @Test func closeBeforeHeadersSendsNothingThenEOF() throws {
        let (server, client) = try serve(TestResponse(fault: .closeBeforeHeaders))
        defer { server.stop() }
        let (bytes, ending) = client.readUntilClosed()
        #expect(bytes.isEmpty)
        #expect(ending == .eof)
        #expect(server.hits("/fault") == 1)
    }

    @Test func resetBeforeHeadersSendsReset() throws {
        let (server, client) = try serve(TestResponse(fault: .resetBeforeHeaders))
        defer { server.stop() }
        let (bytes, ending) = client.readUntilClosed()
        #expect(bytes.isEmpty)
        #expect(ending == .reset)
    }

    @Test func closeAfterBodyBytesTruncatesWithFullLength() throws {
        let (server, client) = try serve(TestResponse(body: .data(Self.hundredBytes), fault: .closeAfterBodyBytes(10)))
        defer { server.stop() }
        let (bytes, ending) = client.readUntilClosed()
        let (head, body) = split(bytes)
        #expect(head.contains("Content-Length: 100"))
        #expect(body == Self.hundredBytes.prefix(10))
        #expect(ending == .eof)
    }

    @Test func resetAfterBodyBytesEndsWithReset() throws {
        let (server, client) = try serve(TestResponse(body: .data(Self.hundredBytes), fault: .resetAfterBodyBytes(10)))
        defer { server.stop() }
        let (bytes, ending) = client.readUntilClosed()
        #expect(ending == .reset)
        // Data queued before the reset may or may not be delivered, but never more than the fault allows.
        #expect(split(bytes).body.count <= 10)
    }

    @Test func shortBodyDeclaresMoreThanItSends() throws {
        let (server, client) = try serve(
            TestResponse(body: .data(Data("0123456789".utf8)), fault: .shortBody(declaredLength: 50))
        )
        defer { server.stop() }
        let (bytes, ending) = client.readUntilClosed()
        let (head, body) = split(bytes)
        #expect(head.contains("Content-Length: 50"))
        #expect(!head.contains("Content-Length: 10"))
        #expect(body == Data("0123456789".utf8))
        #expect(ending == .eof)
    }

    @Test func shortBodyFailsURLSession() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/short") { _ in
            TestResponse(body: .data(Data("abc".utf8)), fault: .shortBody(declaredLength: 10))
        }
        await #expect(throws: (any Error).self) {
            _ = try await HTTPClient.get(server.url("/short"))
        }
    }

    @Test func neverFinishHeadersStallsAfterOneHeaderLine() throws {
        let (server, client) = try serve(TestResponse(fault: .neverFinishHeaders))
        defer { server.stop() }
        let partial = try client.readUntil("X-Test-Fault: never-finish-headers\r\n")
        #expect(String(decoding: partial, as: UTF8.self).hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(client.fill(timeout: 0.2) == .timeout)
    }

    @Test func notHTTPWritesRawBytesThenCloses() throws {
        let garbage = Data("SSH-2.0-OpenSSH\r\n".utf8)
        let (server, client) = try serve(TestResponse(fault: .notHTTP(garbage)))
        defer { server.stop() }
        let (bytes, ending) = client.readUntilClosed()
        #expect(bytes == garbage)
        #expect(ending == .eof)
    }

    @Test func neverRespondStaysSilentButOpen() throws {
        let (server, client) = try serve(TestResponse(fault: .neverRespond))
        defer { server.stop() }
        #expect(client.staysSilent(for: 0.2))
        #expect(server.openConnectionCount == 1)
        #expect(server.hits("/fault") == 1)
    }

    @Test func hugeHeadersStillFormAValidResponse() throws {
        let (server, client) = try serve(
            TestResponse(body: .data(Data("ok".utf8)), fault: .hugeHeaders(bytes: 100_000)))
        defer { server.stop() }
        let response = try client.readResponse()
        #expect(response.status == 200)
        #expect(response.headByteCount >= 100_000)
        #expect(response.header("X-Filler-1") != nil)
        #expect(String(decoding: response.body, as: UTF8.self) == "ok")
    }

    @Test func rawBytesAreTheWholeResponse() throws {
        let raw = Data("HTTP/1.1 299 Odd\r\nContent-Length: 3\r\n\r\nodd".utf8)
        let (server, client) = try serve(TestResponse(fault: .raw(raw)))
        defer { server.stop() }
        let (bytes, ending) = client.readUntilClosed()
        #expect(bytes == raw)
        #expect(ending == .eof)
    }

    @Test func rawWithKeepAliveKeepsTheConnection() throws {
        let raw = Data("HTTP/1.1 200 OK\r\nConnection: keep-alive\r\nContent-Length: 2\r\n\r\nhi".utf8)
        let (server, client) = try serve(TestResponse(fault: .raw(raw)))
        defer { server.stop() }
        #expect(String(decoding: try client.readResponse().body, as: UTF8.self) == "hi")
        try client.sendGET("/fault")
        #expect(String(decoding: try client.readResponse().body, as: UTF8.self) == "hi")
        #expect(server.acceptedConnectionCount == 1)
    }

    @Test(arguments: [
        TestFault.closeBeforeHeaders, .resetBeforeHeaders, .notHTTP(Data("garbage\r\n\r\n".utf8)),
        .resetAfterBodyBytes(5),
    ])
    func urlSessionFailsOnBrokenAnswers(fault: TestFault) async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/broken") { _ in TestResponse(body: .data(Data(count: 100)), fault: fault) }
        await #expect(throws: (any Error).self) {
            _ = try await HTTPClient.get(server.url("/broken"))
        }
    }

    @Test func urlSessionAcceptsLargeHeaders() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/big-head") { _ in TestResponse(body: .data(Data("ok".utf8)), fault: .hugeHeaders(bytes: 32_000))
        }
        let (data, response) = try await HTTPClient.get(server.url("/big-head"))
        #expect(response.statusCode == 200)
        #expect(data == Data("ok".utf8))
    }
}
