import ConnectionKit
import ConnectionKitTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A class that retries 404s (which no policy retries) twice, 0.1 s apart, and records what it was asked.
final class PatientLookup: RetryingRequest, @unchecked Sendable {
    // Safe: `asked` is only touched under `lock`.
    private let lock = NSLock()
    private var asked: [(attempt: Int, status: Int?)] = []

    var questions: [(attempt: Int, status: Int?)] {
        lock.lock()
        defer { lock.unlock() }
        return asked
    }

    override func retryDecision(for error: ConnectionError, attempt: Int, response: ConnectionResponse?)
        -> RetryDecision
    {
        lock.lock()
        asked.append((attempt, response?.statusCode))
        lock.unlock()
        if error.statusCode == 404, attempt < 3 { return .retry(after: 0.1) }
        return super.retryDecision(for: error, attempt: attempt, response: response)
    }
}

/// Refuses every retry, whatever the policy says.
final class Impatient: RetryingRequest, @unchecked Sendable {
    override func retryDecision(for error: ConnectionError, attempt: Int, response: ConnectionResponse?)
        -> RetryDecision
    {
        .doNotRetry
    }
}

/// Retries a body that did not parse once (a proxy's HTML error page, say).
final class ReparsingRequest: JSONConnectionRequest<[Int]>, @unchecked Sendable {
    // Safe: immutable after init.
    let target: URL
    init(_ target: URL) {
        self.target = target
        super.init()
    }
    override var url: URL? { target }
    override func retryDecision(for error: ConnectionError, attempt: Int, response: ConnectionResponse?)
        -> RetryDecision
    {
        if case .parsing = error.kind, attempt == 1 { return .retry(after: 0.05) }
        return super.retryDecision(for: error, attempt: attempt, response: response)
    }
}

/// Returns absurd waits: they are clamped, never trapped on.
final class AbsurdWaits: RetryingRequest, @unchecked Sendable {
    override func retryDecision(for error: ConnectionError, attempt: Int, response: ConnectionResponse?)
        -> RetryDecision
    {
        attempt < 3 ? .retry(after: attempt == 1 ? -.infinity : .nan) : .doNotRetry
    }
}

/// The per-class hook `retryDecision(for:attempt:response:)`.
@Suite(.offThePool, .exclusive, .timeLimit(.minutes(20))) struct RetryHookTests {
    @Test func theHookDecidesFromTheErrorAndTheAttempt() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/missing") { _ in .status(404) }
        let request = PatientLookup(URLRequest(url: server.url("/missing")))
        let ending = await run(request)
        #expect(ending?.error?.statusCode == 404)
        #expect(server.hits("/missing") == 3)
        #expect(request.questions.map(\.attempt) == [1, 2, 3])
        #expect(request.questions.map(\.status) == [404, 404, 404])
        expectGaps(gaps(server, "/missing"), within: [0.1...0.1, 0.1...0.1])
    }

    @Test func theHookCanRefuseWhatThePolicyAllows() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/busy") { _ in .status(503) }
        let ending = await run(Impatient(URLRequest(url: server.url("/busy")), policy: .default))
        #expect(ending?.error?.statusCode == 503)
        #expect(server.hits("/busy") == 1)
    }

    @Test func theHookIsAskedAboutParsingErrors() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        let counter = Counter()
        server.route("/numbers") { _ in counter.next() == 1 ? .text("<html>proxy error</html>") : .json([1, 2, 3]) }
        let request = ReparsingRequest(server.url("/numbers"))
        // Past its one 0.05 s retry wait.
        let recorder = EndingRecorder()
        recorder.track(request, queue: DispatchQueue(label: "RetryHookTests"))
        request.start()
        await recorder.ended(within: 15)
        #expect(recorder.ending(of: request)?.data == Data("[1, 2, 3]".utf8))
        #expect(server.hits("/numbers") == 2)
        expectGaps(gaps(server, "/numbers"), within: [0.05...0.05])
    }

    @Test func absurdWaitsAreClampedNotTrappedOn() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/busy") { _ in .status(503) }
        let ending = await run(AbsurdWaits(URLRequest(url: server.url("/busy"))))
        #expect(ending?.error?.statusCode == 503)
        #expect(server.hits("/busy") == 3)
    }
}
