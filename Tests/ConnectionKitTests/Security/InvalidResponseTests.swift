import ConnectionKit
import ConnectionKitTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Responses that are not valid HTTP fail with a typed error, and printing JSON of any depth works.
@Suite(.offThePool, .timeLimit(.minutes(2))) struct InvalidResponseTests {
    private func ending(of response: TestResponse, headerLimit: Int = 128 * 1024) async throws -> Ending? {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/r") { _ in response }
        return await run(RetryingRequest(URLRequest(url: server.url("/r")), headerLimit: headerLimit))
    }

    private static func raw(_ head: String, body: String) -> TestResponse {
        TestResponse(fault: .raw(Data((head + "\r\n\r\n" + body).utf8)))
    }

    @Test(arguments: [
        ("Content-Length: 5\r\nContent-Length: 6", "hello!"), ("Content-Length: 6\r\nContent-Length: 5", "hello!"),
        ("Content-Length: 5, 6", "hello!"), ("Content-Length: 5\r\nContent-Length: 5, 6", "hello"),
    ])
    func conflictingContentLengthsAreABadServerResponse(headers: String, body: String) async throws {
        let response = Self.raw("HTTP/1.1 200 OK\r\n\(headers)\r\nConnection: close", body: body)
        let ending = try await ending(of: response)
        guard let error = ending?.error?.urlError, error.code == .badServerResponse else {
            Issue.record("expected URLError.badServerResponse, got \(String(describing: ending))")
            return
        }
        #expect(ending?.error?.description.contains("Content-Length") == true, "\(ending?.error?.description ?? "")")
    }

    @Test func repeatedEqualContentLengthsAreAccepted() async throws {
        let response = Self.raw(
            "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 5\r\nConnection: close", body: "hello")
        let ending = try await ending(of: response)
        #expect(ending?.data == Data("hello".utf8), "\(String(describing: ending))")
    }

    @Test func tenMegabytesOfHeadersAreResponseTooLarge() async throws {
        let response = TestResponse(body: .data(Data("ok".utf8)), fault: .hugeHeaders(bytes: 10 * 1024 * 1024))
        let ending = try await ending(of: response)
        guard case .responseTooLarge? = ending?.error?.kind else {
            Issue.record("expected responseTooLarge, got \(String(describing: ending))")
            return
        }
    }

    @Test func tenMegabytesInOneHeaderLineAreResponseTooLarge() async throws {
        let line = "X-Big: " + String(repeating: "a", count: 10 * 1024 * 1024)
        let response = Self.raw("HTTP/1.1 200 OK\r\n\(line)\r\nContent-Length: 2\r\nConnection: close", body: "ok")
        let ending = try await ending(of: response)
        guard case .responseTooLarge? = ending?.error?.kind else {
            Issue.record("expected responseTooLarge, got \(String(describing: ending))")
            return
        }
    }

    @Test(arguments: ["file:///etc/passwd", "ftp://127.0.0.1/x", "data:text/plain,hi"])
    func aRedirectToAnotherSchemeIsRefused(location: String) async throws {
        let ending = try await ending(of: .redirect(to: location))
        guard case .invalidRequest? = ending?.error?.kind else {
            Issue.record("expected invalidRequest, got \(String(describing: ending))")
            return
        }
    }

    // MARK: - JSON of any depth

    @Test func aJSONValue100000LevelsDeepPrints() async throws {
        let depth = 100_000
        // Seconds of CPU in a debug build: printed on a thread of its own, not the test's pool thread (see
        // `onOwnThread`).
        let (description, debugDescription, interpolated) = await onOwnThread {
            let holder = DeepJSON(depth: depth)
            defer { holder.release() }
            return (holder.value.description, String(reflecting: holder.value), "\(holder.value)")
        }
        #expect(description.count == 2 * depth + 8)
        #expect(description.hasPrefix("[[{\"k\":[[") && description.hasSuffix("]]}]]"))
        #expect(description.contains("[null]"))
        #expect(debugDescription == description)
        #expect(interpolated == description)
    }

    @Test func descriptionMatchesJSONEncoderForShallowValues() throws {
        let value: JSON = [
            "b": [1, 0.5, -0.0, 1e21, 1e-7, 123_456_789, true, false, nil],
            "a": "quote\" backslash\\ slash/ newline\n tab\t bell\u{7} nul\u{0} é 😀 \u{2028}",
            "B": [:], "_": [], "10": ["nested": ["deeper": "x"]], "9": 1.5,
        ]
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let expected = String(decoding: try encoder.encode(value), as: UTF8.self)
        #expect(value.description == expected)
        #expect(JSON.number(.nan).description == "<invalid JSON>")
    }
}

/// Builds a deep JSON value (`[[{"k":[[…null…]]}]]`) and takes it apart one level at a time, so that the
/// test checks printing, not Swift's recursive release of nested arrays (which would overflow the stack).
final class DeepJSON: @unchecked Sendable {
    // Safe: `value` is written by `init` and `release()` only, while no other thread reads it.
    private(set) var value: JSON

    init(depth: Int) {
        var value: JSON = .null
        for _ in 0..<(depth - 3) {
            value = .array([value])
        }
        self.value = .array([.array([.object(["k": value])])])
    }

    /// Each step holds the only reference to the next level before the previous one is dropped, so no
    /// release ever has more than one level below it to free.
    func release() {
        var current = value
        value = .null
        while true {
            switch current {
            case .array(let elements) where elements.count == 1: current = elements[0]
            case .object(let members) where members.count == 1: current = members.values.first ?? .null
            default: return
            }
        }
    }
}
