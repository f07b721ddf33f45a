import ConnectionKitTesting
import Foundation
import Testing

@Suite(.timeLimit(.minutes(2))) struct ChunkedResponseTests {
    @Test func chunkedBodyArrivesThroughURLSession() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        let chunks = [Data("alpha-".utf8), Data(), Data("beta-".utf8), Data(repeating: 65, count: 70_000)]
        server.route("/chunked") { _ in TestResponse(body: .chunked(chunks)) }
        let (data, response) = try await HTTPClient.get(server.url("/chunked"))
        #expect(response.statusCode == 200)
        #expect(data == chunks.reduce(Data(), +))
    }

    @Test func chunkedFramingOnTheWire() throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/chunked") { _ in TestResponse(body: .chunked([Data("ab".utf8), Data("cde".utf8)])) }
        let client = try RawHTTPClient(port: server.port)
        try client.sendGET("/chunked", headers: ["Connection: close"])
        let (bytes, ending) = client.readUntilClosed()
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.contains("Transfer-Encoding: chunked\r\n"))
        #expect(!text.contains("Content-Length"))
        #expect(text.hasSuffix("\r\n\r\n2\r\nab\r\n3\r\ncde\r\n0\r\n\r\n"))
        #expect(ending == .eof)
    }
}
