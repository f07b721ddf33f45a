import ConnectionKit
import ConnectionKitTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One misbehaviour of the server and what it must end in.
struct FaultCase: Sendable, CustomTestStringConvertible {
    let name: String
    let response: TestResponse
    /// The ending without retries: a check of the error, or `nil` for a success.
    let expected: (@Sendable (ConnectionError) -> Bool)?
    /// Whether the default policy retries it.
    let retryable: Bool
    /// The request's idle timeout for this case.
    var timeout: TimeInterval = 10

    var testDescription: String { name }

    /// Stops `server`, unless this fault leaves a connection mid-headers: then the server is kept
    /// running for the rest of the process. URLSession on Linux traps ("Transfer completed, but
    /// there's no response") when a server closes a connection after a status line and before
    /// the end of the headers, and the cancel of the timed-out transfer may still be on its way.
    func release(_ server: TestServer) {
        guard case .neverFinishHeaders? = response.fault else {
            server.stop()
            return
        }
        ParkedServers.keep(server)
    }

    static let body = Data((0..<1_000).map { UInt8(truncatingIfNeeded: $0) })

    static let all: [FaultCase] = [
        FaultCase(
            name: "reset before headers", response: TestResponse(body: .data(body), fault: .resetBeforeHeaders),
            expected: { $0.urlErrorCode == .networkConnectionLost }, retryable: true),
        FaultCase(
            name: "closed before headers", response: TestResponse(body: .data(body), fault: .closeBeforeHeaders),
            expected: { $0.urlErrorCode == .networkConnectionLost }, retryable: true),
        FaultCase(
            name: "reset mid-body", response: TestResponse(body: .data(body), fault: .resetAfterBodyBytes(500)),
            expected: { $0.urlErrorCode == .networkConnectionLost }, retryable: true),
        FaultCase(
            name: "body shorter than its Content-Length",
            response: TestResponse(body: .data(body), fault: .shortBody(declaredLength: 5_000)),
            expected: {
                $0.urlErrorCode == .networkConnectionLost
                    && $0.description.contains("closed before the whole body arrived")
            }, retryable: true),
        FaultCase(
            name: "headers that never finish", response: TestResponse(fault: .neverFinishHeaders),
            expected: { $0.isTimedOut }, retryable: true, timeout: 1),
        FaultCase(
            name: "an answer that is not HTTP",
            response: TestResponse(fault: .notHTTP(Data("SSH-2.0-OpenSSH_9.2\r\n".utf8))),
            expected: { $0.urlErrorCode == .badServerResponse && $0.description.contains("not HTTP") }, retryable: false
        ),
        FaultCase(
            name: "64 KiB of headers", response: TestResponse(body: .data(body), fault: .hugeHeaders(bytes: 64 * 1024)),
            expected: nil, retryable: false),
        FaultCase(
            name: "accepts and never answers", response: TestResponse(fault: .neverRespond),
            expected: { $0.isTimedOut }, retryable: true, timeout: 1),
    ]
}

/// Each fault ends in one typed error (or a success), with no crash, hang or second ending; the
/// retryable ones succeed on the next attempt.
@Suite(.offThePool, .exclusive, .timeLimit(.minutes(20))) struct FaultEndingTests {
    @Test(arguments: FaultCase.all)
    func endsInOneTypedEnding(fault: FaultCase) async throws {
        let server = try TestServer.started()
        defer { fault.release(server) }
        server.route("/fault") { _ in fault.response }
        let request = RetryingRequest(server.url("/fault"), policy: .none, timeout: fault.timeout)
        let ending = await run(request)
        if let expected = fault.expected {
            let error = try #require(ending?.error, "\(String(describing: ending))")
            #expect(expected(error), "\(error.debugDescription)")
            #expect(error.requestTypeName == "RetryingRequest")
        } else {
            #expect(ending?.data == FaultCase.body)
        }
        #expect(server.hits("/fault") == 1)
        if fault.timeout < 10 {
            let duration = request.duration ?? 0
            #expect(duration >= fault.timeout - clockTolerance && duration <= fault.timeout + schedulingSlack)
        }
        #expect(!ConnectionRegistry.shared.activeRequests.contains { $0 === request })
    }

    @Test(arguments: FaultCase.all.filter { $0.expected != nil })
    func retryableFaultsSucceedOnTheNextAttempt(fault: FaultCase) async throws {
        let server = try TestServer.started()
        defer { fault.release(server) }
        let counter = Counter()
        server.route("/fault") { _ in counter.next() == 1 ? fault.response : TestResponse(body: .data(FaultCase.body)) }
        let request = RetryingRequest(
            server.url("/fault"), policy: testPolicy(attempts: 2, backoff: 0.1), timeout: fault.timeout)
        let ending = await run(request)
        if fault.retryable {
            #expect(ending?.data == FaultCase.body, "\(String(describing: ending?.error))")
            #expect(server.hits("/fault") == 2)
            let idle = fault.timeout < 10 ? fault.timeout : 0
            expectGaps(
                gaps(server, "/fault"), within: [(0.1 + idle)...(0.1 + idle)],
                early: idle > 0 ? arrivalSkew : clockTolerance)
        } else {
            #expect(ending?.error.map { fault.expected?($0) ?? false } == true)
            #expect(server.hits("/fault") == 1)
        }
    }

    @Test func aRedirectLoopEndsWithTooManyRedirects() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/loop") { _ in .redirect(to: "/loop") }
        let ending = await run(RetryingRequest(server.url("/loop"), policy: testPolicy(attempts: 3)))
        guard ending?.error?.kind == .tooManyRedirects, let limit = ending?.error?.limit else {
            Issue.record("\(String(describing: ending))")
            return
        }
        #expect(limit == 10)
        #expect(server.hits("/loop") == 11, "the first request and 10 redirects; never retried")
    }
}

/// Servers kept running until the process ends (see ``FaultCase/release(_:)``).
enum ParkedServers {
    private static let parked = Locked<[TestServer]>([])

    static func keep(_ server: TestServer) {
        parked.withLock { $0.append(server) }
    }
}
