import ConnectionKitTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The TestServer-only samples of docs/testing-server.md, kept compiling and passing. (Samples that use
/// ConnectionKit's endpoint classes live with ConnectionKit's own tests.)
@Suite struct DocSnippetsTests {
    /// Counts calls from any thread (the "Routes" sample).
    final class Attempts: @unchecked Sendable {
        // Safe: `count` is only touched while `lock` is held.
        private let lock = NSLock()
        private var count = 0

        func next() -> Int {
            lock.lock()
            defer { lock.unlock() }
            count += 1
            return count
        }
    }

    @Test func serverBasics() throws {
        let server = try TestServer.started()
        defer { server.stop() }
        #expect(server.port > 0)
        #expect(server.baseURL.absoluteString == "http://127.0.0.1:\(server.port)")
        #expect(server.url("/events?page=2") == server.url("events?page=2"))
    }

    @Test func routesAndFlakyHandler() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/ping") { _ in .text("pong") }
        server.route("GET", "/items") { _ in .jsonString("[]") }
        server.route("POST", "/items") { request in
            .json(["received": request.body.count], status: 201)
        }
        let attempts = Attempts()
        server.route("/flaky") { _ in
            attempts.next() < 3 ? .status(503) : .text("finally")
        }

        var post = URLRequest(url: server.url("/items"))
        post.httpMethod = "POST"
        post.httpBody = Data("abc".utf8)
        let (created, createdResponse) = try await HTTPClient.send(post)
        #expect(createdResponse.statusCode == 201)
        #expect(String(decoding: created, as: UTF8.self) == #"{"received":3}"#)

        var statuses: [Int] = []
        for _ in 0..<3 { statuses.append(try await HTTPClient.get(server.url("/flaky")).1.statusCode) }
        #expect(statuses == [503, 503, 200])
    }

    @Test func createEventSendsJSON() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/echo") { .echo($0) }

        var request = URLRequest(url: server.url("/echo?draft=true"))
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(#"{"name":"Launch"}"#.utf8)
        let (data, _) = try await URLSession(configuration: .ephemeral).data(for: request)

        let echoed = try JSONDecoder().decode(TestRequest.self, from: data)
        #expect(echoed.method == "POST")
        #expect(echoed.queryItems == ["draft": "true"])
        #expect(echoed.header("Content-Type") == "application/json")
        #expect(String(decoding: echoed.body, as: UTF8.self) == #"{"name":"Launch"}"#)
    }

    @Test func truncatedDownloadFails() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/file") { _ in
            TestResponse(body: .data(Data(count: 10_000)), fault: .closeAfterBodyBytes(1_000))
        }

        await #expect(throws: (any Error).self) {
            _ = try await URLSession(configuration: .ephemeral).data(from: server.url("/file"))
        }
    }

    @Test func resumeAfterDroppedConnection() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        let file = TestBody.generatedBytes(length: 10_000, seed: 1)
        let attempt = Attempts()
        server.route("/file.bin") { request in
            var response = TestResponse.ranged(file, request: request, etag: "\"v1\"")
            if attempt.next() == 1 { response.fault = .closeAfterBodyBytes(4_000) }
            return response
        }
        await #expect(throws: (any Error).self) {
            _ = try await HTTPClient.get(server.url("/file.bin"))
        }
        var resume = URLRequest(url: server.url("/file.bin"))
        resume.setValue("bytes=4000-", forHTTPHeaderField: "Range")
        resume.setValue("\"v1\"", forHTTPHeaderField: "If-Range")
        let (rest, response) = try await HTTPClient.send(resume)
        #expect(response.statusCode == 206)
        #expect(rest == file[4_000...])
        #expect(server.receivedRequests("/file.bin")[1].header("Range") == "bytes=4000-")
    }

    @Test func bigDownloadArrivesIntact() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        let length: Int64 = 5 * 1_024 * 1_024
        server.route("/big") { _ in TestResponse(body: .generated(length: length, seed: 7)) }

        let (data, _) = try await URLSession(configuration: .ephemeral).data(from: server.url("/big"))

        #expect(data == TestBody.generatedBytes(length: length, seed: 7))
    }

    @Test func fileComparisonHelper() throws {
        let fileURL = FileManager.default.temporaryDirectory.appendingPathComponent("generated-\(UUID()).bin")
        defer { try? FileManager.default.removeItem(at: fileURL) }
        try TestBody.generatedBytes(length: 200_000, seed: 5).write(to: fileURL)
        #expect(try fileMatchesGenerated(fileURL, length: 200_000, seed: 5))
        #expect(try !fileMatchesGenerated(fileURL, length: 200_000, seed: 6))
    }

    private func fileMatchesGenerated(_ fileURL: URL, length: Int64, seed: UInt8) throws -> Bool {
        let handle = try FileHandle(forReadingFrom: fileURL)
        defer { try? handle.close() }
        var matches = true
        try TestBody.forEachGeneratedBlock(length: length, seed: seed) { expected in
            let actual = try handle.read(upToCount: expected.count) ?? Data()
            if actual != expected { matches = false }
        }
        let trailing = try handle.read(upToCount: 1) ?? Data()
        return matches && trailing.isEmpty
    }

    @Test func clientReusesItsConnection() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/a") { _ in .text("a") }
        let session = URLSession(configuration: .ephemeral)
        defer { session.finishTasksAndInvalidate() }
        _ = try await session.data(from: server.url("/a"))
        _ = try await session.data(from: server.url("/a"))
        #expect(server.acceptedConnectionCount == 1)
        #expect(Set(server.receivedRequests("/a").map(\.connectionID)).count == 1)
    }
}
