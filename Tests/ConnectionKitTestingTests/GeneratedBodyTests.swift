import ConnectionKitTesting
import Foundation
import Testing

@Suite(.timeLimit(.minutes(2))) struct GeneratedBodyTests {
    @Test func generatedBodyMatchesGeneratedBytes() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        let length: Int64 = 3 * 65_536 + 123
        server.route("/blob") { _ in TestResponse(body: .generated(length: length, seed: 42)) }
        let (data, response) = try await HTTPClient.get(server.url("/blob"))
        #expect(response.value(forHTTPHeaderField: "Content-Length") == String(length))
        #expect(data == TestBody.generatedBytes(length: length, seed: 42))
    }

    @Test func generatedBodyCanBeCheckedBlockByBlock() throws {
        let server = try TestServer.started()
        defer { server.stop() }
        let length: Int64 = 1_000_000
        server.route("/blob") { _ in TestResponse(body: .generated(length: length, seed: 9)) }
        let client = try RawHTTPClient(port: server.port)
        try client.sendGET("/blob")
        let response = try client.readResponse()
        var offset = 0
        var matches = true
        TestBody.forEachGeneratedBlock(length: length, seed: 9) { block in
            if response.body[offset..<(offset + block.count)] != block { matches = false }
            offset += block.count
        }
        #expect(offset == response.body.count)
        #expect(matches)
    }
}
