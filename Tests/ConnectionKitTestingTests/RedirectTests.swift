import ConnectionKitTesting
import Foundation
import Testing

@Suite(.timeLimit(.minutes(2))) struct RedirectTests {
    @Test func urlSessionFollowsTheRedirect() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/old") { _ in .redirect(to: "/new") }
        server.route("/new") { _ in .text("arrived") }
        let (data, response) = try await HTTPClient.get(server.url("/old"))
        #expect(response.statusCode == 200)
        #expect(response.url?.path == "/new")
        #expect(String(decoding: data, as: UTF8.self) == "arrived")
        #expect(server.hits("/old") == 1)
        #expect(server.hits("/new") == 1)
    }

    @Test func redirectCarriesStatusAndLocation() throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/moved") { _ in .redirect(to: "http://example.invalid/x", status: 308) }
        let client = try RawHTTPClient(port: server.port)
        try client.sendGET("/moved")
        let response = try client.readResponse()
        #expect(response.status == 308)
        #expect(response.header("Location") == "http://example.invalid/x")
        #expect(response.header("Content-Length") == "0")
    }
}
