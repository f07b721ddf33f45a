import ConnectionKitTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite(.timeLimit(.minutes(2))) struct EchoTests {
    @Test func echoRoundTripsMethodPathQueryHeadersAndBody() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/echo/path%20x") { .echo($0) }

        var request = URLRequest(url: server.url("/echo/path%20x?a=1&b=two%20words&c=x+y&a=3"))
        request.httpMethod = "PUT"
        request.setValue("application/octet-stream", forHTTPHeaderField: "Content-Type")
        request.setValue("hello", forHTTPHeaderField: "X-Greeting")
        request.httpBody = Data([0, 1, 2, 255])
        let (data, response) = try await HTTPClient.send(request)
        #expect(response.statusCode == 200)
        #expect(response.value(forHTTPHeaderField: "Content-Type") == "application/json")

        let echoed = try JSONDecoder().decode(TestRequest.self, from: data)
        #expect(echoed.method == "PUT")
        #expect(echoed.path == "/echo/path%20x")
        #expect(echoed.query == "a=1&b=two%20words&c=x+y&a=3")
        #expect(echoed.queryItems == ["a": "3", "b": "two words", "c": "x+y"])
        #expect(echoed.header("x-greeting") == "hello")
        #expect(echoed.body == Data([0, 1, 2, 255]))
        #expect(echoed == server.receivedRequests("/echo/path%20x").first)
    }

    @Test func chunkedRequestBodyIsDechunked() throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("POST", "/upload") { .echo($0) }
        let client = try RawHTTPClient(port: server.port)
        try client.send(
            "POST /upload HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "5\r\nhello\r\n7;ext=1\r\n, world\r\n0\r\nX-Trailer: t\r\n\r\n"
        )
        let response = try client.readResponse()
        let echoed = try JSONDecoder().decode(TestRequest.self, from: response.body)
        #expect(String(decoding: echoed.body, as: UTF8.self) == "hello, world")
        #expect(echoed.query == nil)
    }

    @Test func expectContinueGets100BeforeTheBody() throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("POST", "/upload") { .text(String(decoding: $0.body, as: UTF8.self)) }
        let client = try RawHTTPClient(port: server.port)
        try client.send("POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nExpect: 100-continue\r\n\r\n")
        let interim = try client.readResponse()
        #expect(interim.status == 100)
        try client.send("body")
        let final = try client.readResponse()
        #expect(final.status == 200)
        #expect(String(decoding: final.body, as: UTF8.self) == "body")
    }

    @Test func oversizedRequestHeadIs431() throws {
        let server = try TestServer.started()
        defer { server.stop() }
        let client = try RawHTTPClient(port: server.port)
        let filler = String(repeating: "X-Big: " + String(repeating: "b", count: 1_000) + "\r\n", count: 1_100)
        try client.send("GET / HTTP/1.1\r\nHost: x\r\n" + filler + "\r\n")
        let response = try client.readResponse()
        #expect(response.status == 431)
        #expect(client.readUntilClosed().ending == .eof)
    }
}
