import ConnectionKitTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite(.timeLimit(.minutes(2))) struct BasicResponseTests {
    @Test func statusHeadersAndBodyArrive() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("GET", "/thing") { _ in
            TestResponse(status: 201, headers: [TestHeader("X-Custom", "yes")], body: .data(Data("made".utf8)))
        }
        let (data, response) = try await HTTPClient.get(server.url("/thing"))
        #expect(response.statusCode == 201)
        #expect(response.value(forHTTPHeaderField: "X-Custom") == "yes")
        #expect(response.value(forHTTPHeaderField: "Content-Length") == "4")
        #expect(String(decoding: data, as: UTF8.self) == "made")
    }

    @Test func conveniencesSetContentTypes() async throws {
        struct Item: Codable, Equatable {
            var b: Int
            var a: String
        }
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/text") { _ in .text("héllo", status: 202) }
        server.route("/json") { _ in .json(Item(b: 1, a: "x")) }
        server.route("/raw-json") { _ in .jsonString("{not json", status: 500) }
        server.route("/status") { _ in .status(503, body: "busy") }

        let (text, textResponse) = try await HTTPClient.get(server.url("text"))
        #expect(textResponse.statusCode == 202)
        #expect(textResponse.value(forHTTPHeaderField: "Content-Type") == "text/plain; charset=utf-8")
        #expect(String(decoding: text, as: UTF8.self) == "héllo")

        let (json, jsonResponse) = try await HTTPClient.get(server.url("/json"))
        #expect(jsonResponse.value(forHTTPHeaderField: "Content-Type") == "application/json")
        #expect(String(decoding: json, as: UTF8.self) == #"{"a":"x","b":1}"#)

        let (raw, rawResponse) = try await HTTPClient.get(server.url("/raw-json"))
        #expect(rawResponse.statusCode == 500)
        #expect(String(decoding: raw, as: UTF8.self) == "{not json")

        let (busy, busyResponse) = try await HTTPClient.get(server.url("/status"))
        #expect(busyResponse.statusCode == 503)
        #expect(String(decoding: busy, as: UTF8.self) == "busy")
    }

    @Test func unmatchedPathIs404NoRoute() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        let (data, response) = try await HTTPClient.get(server.url("/nowhere?x=1"))
        #expect(response.statusCode == 404)
        #expect(String(decoding: data, as: UTF8.self) == "no route")
        #expect(server.hits("/nowhere") == 1)
    }

    @Test func methodRoutesWinAndLaterRegistrationsReplace() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/r") { _ in .text("any") }
        server.route("POST", "/r") { _ in .text("first post") }
        server.route("POST", "/r") { _ in .text("second post") }

        let (getBody, _) = try await HTTPClient.get(server.url("/r"))
        #expect(String(decoding: getBody, as: UTF8.self) == "any")

        var post = URLRequest(url: server.url("/r"))
        post.httpMethod = "POST"
        post.httpBody = Data("x".utf8)
        let (postBody, _) = try await HTTPClient.send(post)
        #expect(String(decoding: postBody, as: UTF8.self) == "second post")
    }

    @Test func headSendsHeadersOnly() throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/h") { _ in .text("twelve bytes") }
        let client = try RawHTTPClient(port: server.port)
        try client.send("HEAD /h HTTP/1.1\r\nHost: x\r\n\r\n")
        let head = try client.readResponse(isHEAD: true)
        #expect(head.status == 200)
        #expect(head.header("Content-Length") == "12")
        // The connection stays usable: the next response starts right where the head ended.
        try client.sendGET("/h")
        let next = try client.readResponse()
        #expect(String(decoding: next.body, as: UTF8.self) == "twelve bytes")
    }

    @Test func urlHelperAcceptsPathsWithAndWithoutSlash() throws {
        let server = try TestServer.started()
        defer { server.stop() }
        #expect(server.port > 0)
        #expect(server.baseURL.absoluteString == "http://127.0.0.1:\(server.port)")
        #expect(server.url("/a/b?c=d").absoluteString == "http://127.0.0.1:\(server.port)/a/b?c=d")
        #expect(server.url("a").absoluteString == "http://127.0.0.1:\(server.port)/a")
    }
}
