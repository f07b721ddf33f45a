import ConnectionKitTesting
import Foundation
import Testing

@Suite(.timeLimit(.minutes(2))) struct KeepAliveTests {
    @Test func twoRequestsShareOneConnection() throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/a") { .text("a:\($0.connectionID)") }
        server.route("/b") { .text("b:\($0.connectionID)") }
        let client = try RawHTTPClient(port: server.port)
        try client.sendGET("/a")
        let first = try client.readResponse()
        try client.sendGET("/b")
        let second = try client.readResponse()
        #expect(String(decoding: first.body, as: UTF8.self) == "a:1")
        #expect(String(decoding: second.body, as: UTF8.self) == "b:1")
        #expect(server.acceptedConnectionCount == 1)
        #expect(server.openConnectionCount == 1)
    }

    @Test func pipelinedRequestsAreAnsweredInOrder() throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/p") { .text($0.query ?? "") }
        let client = try RawHTTPClient(port: server.port)
        try client.send("GET /p?1 HTTP/1.1\r\nHost: x\r\n\r\nGET /p?2 HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(String(decoding: try client.readResponse().body, as: UTF8.self) == "1")
        #expect(String(decoding: try client.readResponse().body, as: UTF8.self) == "2")
        #expect(server.acceptedConnectionCount == 1)
    }

    @Test func requestConnectionCloseClosesAfterTheResponse() throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/c") { _ in .text("bye") }
        let client = try RawHTTPClient(port: server.port)
        try client.sendGET("/c", headers: ["Connection: close"])
        let response = try client.readResponse()
        #expect(response.header("Connection") == "close")
        #expect(client.readUntilClosed().ending == .eof)
    }

    @Test func responseConnectionCloseIsHonoured() throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/c") { _ in
            TestResponse(headers: [TestHeader("Connection", "close")], body: .data(Data("x".utf8)))
        }
        let client = try RawHTTPClient(port: server.port)
        try client.sendGET("/c")
        #expect(try client.readResponse().status == 200)
        #expect(client.readUntilClosed().ending == .eof)
    }

    @Test func http10ClosesByDefault() throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/old") { _ in .text("old") }
        let client = try RawHTTPClient(port: server.port)
        try client.send("GET /old HTTP/1.0\r\n\r\n")
        #expect(String(decoding: try client.readResponse().body, as: UTF8.self) == "old")
        #expect(client.readUntilClosed().ending == .eof)
    }
}
