import ConnectionKitTesting
import Foundation
import Testing

@testable import ConnectionKit

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Middleware in a client's pipeline, against a real server: what a middleware changes reaches the wire,
/// an answer stands for the network (nothing sent, no stage after it sees it), a retry decision is honoured,
/// the order is the documented one, and a middleware that throws or breaks a rule ends the run with a typed
/// error naming it.
@Suite("Middleware", .offThePool, .timeLimit(.minutes(5)))
struct MiddlewareTests {
    @Test("a middleware's header reaches the server on every attempt; a class's middleware runs after the client's")
    func headersReachTheWire() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        let count = Locked(0)
        server.route("/flaky") { _ in
            count.withLock {
                $0 += 1
                return $0
            } == 1 ? .status(503) : .text("ok")
        }
        let client = ConnectionClient.ownForTests(
            label: "middleware-headers",
            settings: .init(retryPolicy: RetryPolicy(maximumAttempts: 2, initialBackoff: 0, jitter: 0)),
            middleware: [SetHeader(name: "X-Client", value: "client")])
        let request = Fetch(server.url("/flaky"), classMiddleware: [CopyHeader(from: "X-Client", to: "X-Class")])
        let body = try #require(await within(30, "the run") { try? await request.value(on: client) })
        #expect(String(decoding: body, as: UTF8.self) == "ok")
        let received = server.receivedRequests("/flaky")
        #expect(received.count == 2)
        for sent in received {
            #expect(sent.header("X-Client") == "client")
            #expect(sent.header("X-Class") == "client", "the class's middleware saw the client's header")
        }
        try await within(30, "the client's shutdown") { await client.shutdown() }
    }

    @Test("a middleware that answers: nothing is sent, the class parses the answer, and neither jar nor cache sees it")
    func anAnswerStandsForTheNetwork() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/mocked") { _ in .text("from the network") }
        let jar = CookieJar()
        let cache = HTTPCache.inMemory()
        let answer = MiddlewareAnswer(
            statusCode: 200,
            headerFields: [
                ("Content-Type", "text/plain"), ("Cache-Control", "max-age=600"), ("Set-Cookie", "mocked=1"),
            ], body: Data("mocked".utf8))
        let heard = Locked<[String]>([])
        let client = ConnectionClient.ownForTests(
            label: "middleware-answer", cookieJar: jar, httpCache: cache,
            middleware: [Listen(named: "outer", into: heard), Answer(answer), Listen(named: "never", into: heard)])
        let request = Fetch(server.url("/mocked"))
        let body = try #require(await within(30, "the run") { try? await request.value(on: client) })
        #expect(String(decoding: body, as: UTF8.self) == "mocked")
        #expect(request.responseSource == .middleware)
        #expect(server.hits("/mocked") == 0)
        #expect(jar.allCookies.isEmpty, "the jar is a stage after the middleware")
        #expect(cache.totalBytes == 0, "the cache is a stage after the middleware")
        #expect(heard.withLock { $0 } == ["outer: 200"], "only the middleware before the answer hear it")
        try await within(30, "the client's shutdown") { await client.shutdown() }
    }

    @Test("a middleware's retry decision is honoured: a 503 the class would not retry is tried again")
    func aMiddlewareRetries() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        let count = Locked(0)
        server.route("/once-503") { _ in
            count.withLock {
                $0 += 1
                return $0
            } == 1 ? .status(503) : .text("second")
        }
        let client = ConnectionClient.ownForTests(label: "middleware-retry", middleware: [RetryFirst503()])
        let request = Fetch(server.url("/once-503"))
        let body = try #require(await within(30, "the run") { try? await request.value(on: client) })
        #expect(String(decoding: body, as: UTF8.self) == "second")
        #expect(server.hits("/once-503") == 2)
        try await within(30, "the client's shutdown") { await client.shutdown() }
    }

    @Test("several middleware: prepare in list order (client's, then class's), outcomes in reverse")
    func theOrderOfSeveral() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/order") { _ in .text("ok") }
        let calls = Locked<[String]>([])
        let client = ConnectionClient.ownForTests(
            label: "middleware-order", middleware: [Trace("A", calls), Trace("B", calls)])
        let request = Fetch(server.url("/order"), classMiddleware: [Trace("C", calls)])
        _ = try #require(await within(30, "the run") { try? await request.value(on: client) })
        #expect(
            calls.withLock { $0 } == [
                "A started", "B started", "C started", "A prepare", "A answer", "B prepare", "B answer", "C prepare",
                "C answer", "C received 200", "B received 200", "A received 200",
            ])
        #expect(client.pipelineDescription.prefix(2) == ["A", "B"])
        #expect(client.pipelineDescription.dropFirst(2).prefix(3) == ["authorization", "cookies", "cache"])
        try await within(30, "the client's shutdown") { await client.shutdown() }
    }

    @Test("a middleware that throws ends the run with a middleware error naming it; nothing is sent")
    func aThrowingMiddlewareIsNamed() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/never") { _ in .text("sent") }
        let client = ConnectionClient.ownForTests(label: "middleware-throws", middleware: [Refuse()])
        let error = try await failure(of: Fetch(server.url("/never")), on: client)
        #expect(error.kind == .middleware)
        #expect(error.middlewareName == "Refuse")
        #expect(error.underlyingError is Refuse.Refusal)
        #expect(error.localizedDescription.contains("Refuse"))
        #expect(server.hits("/never") == 0)
        try await within(30, "the client's shutdown") { await client.shutdown() }
    }

    @Test(
        "a middleware that breaks a rule is refused with a clear error, never a trap",
        arguments: [RuleBreaker.Breach.methodWithLineBreak, .noURL, .statusOutOfRange, .answerFieldWithLineBreak])
    func aRuleBreakerIsRefused(breach: RuleBreaker.Breach) async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/rules") { _ in .text("sent") }
        let client = ConnectionClient.ownForTests(label: "middleware-rules", middleware: [RuleBreaker(breach: breach)])
        let error = try await failure(of: Fetch(server.url("/rules")), on: client)
        #expect(error.kind == .middleware)
        #expect(error.middlewareName == "RuleBreaker")
        #expect(error.reason?.isEmpty == false, "the rule broken is said")
        #expect(server.hits("/rules") == 0)
        try await within(30, "the client's shutdown") { await client.shutdown() }
    }

    @Test("an answer given to a download is refused: answers are for bodies kept in memory")
    func anAnswerToADownloadIsRefused() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ck-mw-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let client = ConnectionClient.ownForTests(
            label: "middleware-download", middleware: [Answer(MiddlewareAnswer(statusCode: 200))])
        let download = DownloadRequest(
            from: URL(string: "http://127.0.0.1:9/file")!, to: folder.appendingPathComponent("file"))
        let error = try await failure(of: download, on: client)
        #expect(error.kind == .middleware)
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("file").path))
        try await within(30, "the client's shutdown") { await client.shutdown() }
    }
}

/// The `ConnectionError` a run of `request` on `client` ends with (an issue when it succeeds).
func failure<Output: Sendable>(
    of request: ConnectionRequest<Output>, on client: ConnectionClient,
    sourceLocation: SourceLocation = #_sourceLocation
) async throws -> ConnectionError {
    let result = try await within(30, "the run", sourceLocation: sourceLocation) {
        do {
            _ = try await request.value(on: client)
            return ConnectionError?.none
        } catch {
            return error as? ConnectionError
        }
    }
    return try #require(result, "the run failed with a ConnectionError", sourceLocation: sourceLocation)
}

// MARK: - Requests and middleware of the tests

/// A GET of `target`, with middleware of its class.
final class Fetch: ConnectionRequest<Data>, @unchecked Sendable {
    // Safe: only immutable stored properties.
    let target: URL
    let classMiddleware: [any ConnectionMiddleware]
    init(_ target: URL, classMiddleware: [any ConnectionMiddleware] = []) {
        (self.target, self.classMiddleware) = (target, classMiddleware)
    }
    /// The last response validation saw.
    let response = Locked<ConnectionResponse?>(nil)
    override var url: URL? { target }
    override var middleware: [any ConnectionMiddleware] { classMiddleware }
    override func validate(_ response: ConnectionResponse, data: Data?) throws {
        self.response.withLock { $0 = response }
        try super.validate(response, data: data)
    }
}

struct SetHeader: ConnectionMiddleware {
    let name: String
    let value: String
    func prepare(_ request: inout URLRequest, context: MiddlewareContext) throws {
        request.setValue(value, forHTTPHeaderField: name)
    }
}

struct CopyHeader: ConnectionMiddleware {
    let from: String
    let to: String
    func prepare(_ request: inout URLRequest, context: MiddlewareContext) throws {
        request.setValue(request.value(forHTTPHeaderField: from), forHTTPHeaderField: to)
    }
}

struct Answer: ConnectionMiddleware {
    let answer: MiddlewareAnswer
    init(_ answer: MiddlewareAnswer) { self.answer = answer }
    func answer(for request: URLRequest, context: MiddlewareContext) throws -> MiddlewareAnswer? { answer }
}

struct Listen: ConnectionMiddleware {
    let named: String
    let into: Locked<[String]>
    func received(_ outcome: MiddlewareOutcome, context: MiddlewareContext) {
        guard case .response(let response, _) = outcome else { return }
        into.withLock { $0.append("\(named): \(response.statusCode)") }
    }
}

struct RetryFirst503: ConnectionMiddleware {
    func retryDecision(
        for error: ConnectionError, attempt: Int, response: ConnectionResponse?, context: MiddlewareContext
    ) -> RetryDecision? {
        error.statusCode == 503 && attempt == 1 ? .retry(after: 0) : nil
    }
}

struct Trace: ConnectionMiddleware {
    let name: String
    let calls: Locked<[String]>
    init(_ name: String, _ calls: Locked<[String]>) { (self.name, self.calls) = (name, calls) }
    func runStarted(_ request: AnyConnectionRequest) -> (any Sendable)? {
        calls.withLock { $0.append("\(name) started") }
        return nil
    }
    func prepare(_ request: inout URLRequest, context: MiddlewareContext) throws {
        calls.withLock { $0.append("\(name) prepare") }
    }
    func answer(for request: URLRequest, context: MiddlewareContext) throws -> MiddlewareAnswer? {
        calls.withLock { $0.append("\(name) answer") }
        return nil
    }
    func received(_ outcome: MiddlewareOutcome, context: MiddlewareContext) {
        guard case .response(let response, _) = outcome else { return }
        calls.withLock { $0.append("\(name) received \(response.statusCode)") }
    }
}

struct Refuse: ConnectionMiddleware {
    struct Refusal: Error {}
    func prepare(_ request: inout URLRequest, context: MiddlewareContext) throws { throw Refusal() }
}

struct RuleBreaker: ConnectionMiddleware {
    enum Breach: Sendable, CustomTestStringConvertible {
        case methodWithLineBreak, noURL, statusOutOfRange, answerFieldWithLineBreak
        var testDescription: String { "\(self)" }
    }
    let breach: Breach
    func prepare(_ request: inout URLRequest, context: MiddlewareContext) throws {
        switch breach {
        case .methodWithLineBreak: request.httpMethod = "GET /smuggled HTTP/1.1\r\nX-Injected: 1\r\n\r\nGET"
        case .noURL: request.url = nil
        default: break
        }
    }
    func answer(for request: URLRequest, context: MiddlewareContext) throws -> MiddlewareAnswer? {
        switch breach {
        case .statusOutOfRange: return MiddlewareAnswer(statusCode: 1000)
        case .answerFieldWithLineBreak: return MiddlewareAnswer(statusCode: 200, headerFields: [("X-A", "1\r\nX-B: 2")])
        default: return nil
        }
    }
}
