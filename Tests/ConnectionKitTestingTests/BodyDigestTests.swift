import ConnectionKitTesting
import Foundation
import Testing

@Suite(.timeLimit(.minutes(2))) struct BodyDigestTests {
    private func expectedDigest(_ pieces: [String]) -> TestBodyDigest {
        var digest = TestBodyDigest()
        for piece in pieces { digest.update(Data(piece.utf8)) }
        return digest
    }

    @Test func aDigestDoesNotDependOnHowTheBodyWasSplit() {
        let whole = expectedDigest(["hello, world and more"])
        let split = expectedDigest(["hel", "lo, w", "", "orld and mor", "e"])
        #expect(whole.checksum == split.checksum)
        #expect(whole.byteCount == 21)
        #expect(whole.checksum != expectedDigest(["hello, world and morE"]).checksum)
        #expect(split.head == Data("hello, world and more".utf8))
    }

    @Test func contentLengthAndChunkedBodiesAreDigestedNotStored() throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.digestBodies(of: "/upload")
        server.route("POST", "/upload") { request in
            .text("\(request.body.count) \(request.bodyDigest?.byteCount ?? -1)")
        }
        let client = try RawHTTPClient(port: server.port)
        try client.send("POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 12\r\n\r\nhello, world")
        #expect(String(decoding: try client.readResponse().body, as: UTF8.self) == "0 12")
        try client.send(
            "POST /upload HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "5\r\nhello\r\n7;ext=1\r\n, world\r\n0\r\n\r\n")
        #expect(String(decoding: try client.readResponse().body, as: UTF8.self) == "0 12")
        let received = server.receivedRequests("/upload")
        #expect(received.count == 2)
        for request in received {
            #expect(request.body.isEmpty)
            #expect(request.bodyDigest == expectedDigest(["hello, world"]))
        }
    }

    @Test func otherPathsStillStoreTheirBodies() throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.digestBodies(of: "/upload")
        server.route("POST", "/other") { _ in .text("ok") }
        let client = try RawHTTPClient(port: server.port)
        try client.send("POST /other HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nhi")
        _ = try client.readResponse()
        let request = try #require(server.receivedRequests("/other").first)
        #expect(request.bodyString == "hi")
        #expect(request.bodyDigest == nil)
    }
}
