import ConnectionKitTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite(.timeLimit(.minutes(2))) struct RangedTests {
    private static let content = Data((0..<100).map { UInt8($0) })

    private func startServer() throws -> TestServer {
        let server = try TestServer.started()
        server.route("/file") {
            .ranged(Self.content, request: $0, etag: "\"v1\"", lastModified: "Mon, 01 Jan 2024 00:00:00 GMT")
        }
        return server
    }

    private func get(_ server: TestServer, headers: [String: String]) async throws -> (Data, HTTPURLResponse) {
        var request = URLRequest(url: server.url("/file"))
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        return try await HTTPClient.send(request)
    }

    @Test func noRangeGivesTheWholeBody() async throws {
        let server = try startServer()
        defer { server.stop() }
        let (data, response) = try await get(server, headers: [:])
        #expect(response.statusCode == 200)
        #expect(data == Self.content)
        #expect(response.value(forHTTPHeaderField: "Accept-Ranges") == "bytes")
        #expect(response.value(forHTTPHeaderField: "ETag") == "\"v1\"")
        #expect(response.value(forHTTPHeaderField: "Last-Modified") == "Mon, 01 Jan 2024 00:00:00 GMT")
    }

    @Test func openEndedRangeGives206() async throws {
        let server = try startServer()
        defer { server.stop() }
        let (data, response) = try await get(server, headers: ["Range": "bytes=90-"])
        #expect(response.statusCode == 206)
        #expect(response.value(forHTTPHeaderField: "Content-Range") == "bytes 90-99/100")
        #expect(data == Self.content[90...])
    }

    @Test func boundedRangeGives206AndClampsTheEnd() async throws {
        let server = try startServer()
        defer { server.stop() }
        let (data, response) = try await get(server, headers: ["Range": "bytes=10-19"])
        #expect(response.statusCode == 206)
        #expect(response.value(forHTTPHeaderField: "Content-Range") == "bytes 10-19/100")
        #expect(data == Self.content[10...19])

        let (tail, clamped) = try await get(server, headers: ["Range": "bytes=95-500"])
        #expect(clamped.value(forHTTPHeaderField: "Content-Range") == "bytes 95-99/100")
        #expect(tail == Self.content[95...])
    }

    @Test func matchingIfRangeAppliesTheRange() async throws {
        let server = try startServer()
        defer { server.stop() }
        let (_, byEtag) = try await get(server, headers: ["Range": "bytes=50-", "If-Range": "\"v1\""])
        #expect(byEtag.statusCode == 206)
        let (_, byDate) = try await get(
            server, headers: ["Range": "bytes=50-", "If-Range": "Mon, 01 Jan 2024 00:00:00 GMT"])
        #expect(byDate.statusCode == 206)
    }

    @Test func staleIfRangeGivesTheWholeBody() async throws {
        let server = try startServer()
        defer { server.stop() }
        let (data, response) = try await get(server, headers: ["Range": "bytes=50-", "If-Range": "\"v0\""])
        #expect(response.statusCode == 200)
        #expect(data == Self.content)
    }

    @Test func rangePastTheEndIs416() async throws {
        let server = try startServer()
        defer { server.stop() }
        let (data, response) = try await get(server, headers: ["Range": "bytes=100-"])
        #expect(response.statusCode == 416)
        #expect(response.value(forHTTPHeaderField: "Content-Range") == "bytes */100")
        #expect(data.isEmpty)
    }

    @Test func suffixAndMalformedRanges() {
        let suffix = TestResponse.ranged(
            Self.content, request: TestRequest(method: "GET", path: "/", headers: [TestHeader("Range", "bytes=-5")]))
        #expect(suffix.status == 206)
        guard case .data(let data) = suffix.body else {
            Issue.record("expected a data body, got \(suffix.body)")
            return
        }
        #expect(data == Self.content.suffix(5))
        let malformed = TestResponse.ranged(
            Self.content, request: TestRequest(method: "GET", path: "/", headers: [TestHeader("Range", "bytes=9-2")]))
        #expect(malformed.status == 200)
        #expect(!malformed.headers.contains { $0.name == "ETag" })
    }
}
