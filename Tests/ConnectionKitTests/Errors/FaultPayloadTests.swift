import ConnectionKit
import ConnectionKitTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Bodies that are large, malformed, compressed or missing.
@Suite(.offThePool, .exclusive, .timeLimit(.minutes(20))) struct FaultPayloadTests {
    private func fetch<Output: Decodable & Sendable>(
        _ type: Output.Type, _ response: TestResponse, policy: RetryPolicy = .none, bodyLimit: Int64 = 128 * 1024 * 1024
    ) async throws -> (Result<Output, ConnectionError>?, hits: Int) {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/payload") { _ in response }
        let request = JSONFetch<Output>(server.url("/payload"), policy: policy, bodyLimit: bodyLimit)
        let recorder = EndingRecorder(settle: settleWindow(policy: policy, timeout: request.timeoutInterval))
        recorder.track(request, queue: DispatchQueue(label: "FaultPayloadTests"))
        request.start()
        await recorder.ended(within: 60)
        let result = recorder.first(of: request).map { first in
            first.mapError { $0 as? ConnectionError ?? ConnectionError(.other(underlying: $0)) }
        }
        return (result, server.hits("/payload"))
    }

    @Test func a50MiBJSONBodyDecodes() async throws {
        let element = "\"" + String(repeating: "a", count: 1_022) + "\""
        let count = 51_200
        // Seconds of CPU in a debug build: built on a thread of its own, not the test's pool thread (see
        // `onOwnThread`).
        let json = await onOwnThread {
            var json = Data(capacity: count * 1_025 + 2)
            json.append(UInt8(ascii: "["))
            for index in 0..<count {
                if index > 0 { json.append(UInt8(ascii: ",")) }
                json.append(contentsOf: element.utf8)
            }
            json.append(UInt8(ascii: "]"))
            return json
        }
        #expect(json.count > 50 * 1024 * 1024)
        let (result, hits) = try await fetch([String].self, TestResponse(body: .data(json)))
        let strings = try #require(try result?.get())
        #expect(strings.count == count)
        #expect(strings.allSatisfy { $0.utf8.count == 1_022 })
        #expect(hits == 1)
    }

    @Test func invalidUTF8InJSONIsAParsingError() async throws {
        var bytes = Data("{\"name\":\"".utf8)
        bytes.append(contentsOf: [0xC3, 0x28, 0xFF])
        bytes.append(contentsOf: Data("\",\"values\":[]}".utf8))
        let (result, hits) = try await fetch(GzipPayload.self, TestResponse(body: .data(bytes)), policy: .default)
        guard case .failure(let error)? = result, case .parsing = error.kind else {
            Issue.record("\(String(describing: result))")
            return
        }
        #expect(hits == 1, "a parsing error is not retried by the policy")
    }

    @Test func aGzipEncodedBodyIsDecoded() async throws {
        let response = TestResponse(headers: [TestHeader("Content-Encoding", "gzip")], body: .data(GzipFixture.json))
        let (result, _) = try await fetch(GzipPayload.self, response)
        #expect(try result?.get() == GzipPayload(name: "gzip", values: [1, 2, 3]))
    }

    @Test func aCorruptGzipBodyIsATransportError() async throws {
        let response = TestResponse(
            headers: [TestHeader("Content-Encoding", "gzip")], body: .data(Data("not gzip".utf8)))
        let (result, hits) = try await fetch(GzipPayload.self, response, policy: .default)
        guard case .failure(let error)? = result else {
            Issue.record("\(String(describing: result))")
            return
        }
        #expect(error.urlErrorCode == .cannotDecodeContentData, "\(error.debugDescription)")
        #expect(hits == 1)
    }

    @Test(
        "the zip-bomb fixture is a valid gzip stream of 100,000 zeros: the limit test below fails on size, not on a bad checksum"
    )
    func theZerosFixtureInflatesWhole() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/zeros") { _ in
            TestResponse(headers: [TestHeader("Content-Encoding", "gzip")], body: .data(GzipFixture.zeros))
        }
        let data = try await BasicConnectionRequest(request: URLRequest(url: server.url("/zeros"))).value()
        #expect(data == Data(count: 100_000))
    }

    @Test func theLimitCountsDecodedBytes() async throws {
        // 132 compressed bytes that inflate to 100,000: the limit applies to what is kept in memory.
        let response = TestResponse(headers: [TestHeader("Content-Encoding", "gzip")], body: .data(GzipFixture.zeros))
        let (result, _) = try await fetch(GzipPayload.self, response, bodyLimit: 10_000)
        guard case .failure(let error)? = result, error.kind == .responseTooLarge, error.limit == 10_000 else {
            Issue.record("\(String(describing: result))")
            return
        }
    }

    @Test func anEmpty204ForAJSONRequestIsAParsingError() async throws {
        let (result, hits) = try await fetch(GzipPayload.self, TestResponse(status: 204), policy: .default)
        guard case .failure(let error)? = result, case .parsing = error.kind else {
            Issue.record("\(String(describing: result))")
            return
        }
        #expect(error.description.contains("empty"))
        #expect(hits == 1)
    }
}
