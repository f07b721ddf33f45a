import ConnectionKit
import ConnectionKitTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A configurable request for retry and fault tests: every setting is fixed at init.
class RetryingRequest: BasicConnectionRequest, @unchecked Sendable {
    // Safe: the settings are immutable after init; the rest lives in the base class's locked storage.
    let policy: RetryPolicy
    let timeout: TimeInterval
    let headerLimit: Int
    let bodyLimit: Int64
    let redirectLimit: Int
    let interval: TimeInterval

    init(
        _ request: URLRequest, policy: RetryPolicy = .none, timeout: TimeInterval = 10,
        headerLimit: Int = 128 * 1024, bodyLimit: Int64 = 128 * 1024 * 1024, redirectLimit: Int = 10,
        progressInterval: TimeInterval = 0.1
    ) {
        self.policy = policy
        self.timeout = timeout
        self.headerLimit = headerLimit
        self.bodyLimit = bodyLimit
        self.redirectLimit = redirectLimit
        self.interval = progressInterval
        super.init(request: request)
    }

    convenience init(
        _ url: URL, method: HTTPMethod = .get, headers: [String: String] = [:], policy: RetryPolicy = .none,
        timeout: TimeInterval = 10
    ) {
        var request = URLRequest(url: url)
        request.httpMethod = method.rawValue
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        if method == .post || method == .patch || method == .put { request.httpBody = Data("{}".utf8) }
        self.init(request, policy: policy, timeout: timeout)
    }

    override var retryPolicy: RetryPolicy { policy }
    override var timeoutInterval: TimeInterval { timeout }
    override var maximumResponseHeaderSize: Int { headerLimit }
    override var maximumResponseBodySize: Int64 { bodyLimit }
    override var maximumRedirects: Int { redirectLimit }
    override var progressInterval: TimeInterval { interval }
}

/// How one run ended.
enum Ending: Sendable {
    case success(Data)
    case failure(ConnectionError)

    var error: ConnectionError? {
        if case .failure(let error) = self { return error }
        return nil
    }

    var data: Data? {
        if case .success(let data) = self { return data }
        return nil
    }
}

extension EndingRecorder {
    /// The first ending of `request` as an ``Ending``: a success's output as `Data` (described, when it
    /// is not `Data`), a failure as a `ConnectionError`.
    func ending(of request: AnyObject) -> Ending? {
        switch results(request).first {
        case .success(let output)?:
            return .success(output as? Data ?? Data("\(output)".utf8))
        case .failure(let error)?:
            return .failure(error as? ConnectionError ?? ConnectionError(.other(underlying: error)))
        case nil:
            return nil
        }
    }
}

/// How long to watch for a second ending of `request`: past the timers it arms that a test can afford
/// to wait out (its deadline, its longest backoff, its idle timeout, each when under 2 s).
func settleWindow(for request: RetryingRequest) -> TimeInterval {
    settleWindow(policy: request.policy, timeout: request.timeout)
}

/// ``settleWindow(for:)`` for a request with this policy and idle timeout.
func settleWindow(policy: RetryPolicy, timeout: TimeInterval) -> TimeInterval {
    var longestBackoff = 0.0
    if policy.maximumAttempts > 1 {
        let growth = pow(policy.backoffMultiplier, Double(policy.maximumAttempts))
        longestBackoff = min(policy.maximumBackoff, policy.initialBackoff * growth) * (1 + policy.jitter)
    }
    let timers = [longestBackoff, policy.deadline ?? 0, timeout].filter { $0.isFinite && $0 < 2 }
    return max(EndingRecorder.defaultSettle, (timers.max() ?? 0) + 0.2)
}

/// Starts `request`, waits for its one ending and checks that no second one follows.
func run(_ request: RetryingRequest, timeout: TimeInterval = 60, sourceLocation: SourceLocation = #_sourceLocation)
    async -> Ending?
{
    let recorder = EndingRecorder(settle: settleWindow(for: request))
    recorder.track(request, queue: DispatchQueue(label: "ConnectionKitTests.endings"))
    request.start()
    await recorder.ended(within: timeout, sourceLocation: sourceLocation)
    return recorder.ending(of: request)
}

/// Seconds between consecutive requests the server received for `path`.
func gaps(_ server: TestServer, _ path: String) -> [TimeInterval] {
    let times = server.receivedRequests(path).map(\.receivedAt)
    return zip(times.dropFirst(), times).map { $0.timeIntervalSince($1) }
}

/// How late a timer may fire on a loaded 2-core machine running tests in parallel: CI runs the suite
/// once beside `stress-ng --cpu 2` (a load average of about 8), where 1.5 s was seen exceeded. Every
/// bound that uses it is far below the figure the bug it catches would show.
let schedulingSlack: TimeInterval = 3
/// How early a gap may look: timestamps are taken on different threads.
let clockTolerance: TimeInterval = 0.01
/// How much shorter a gap that contains a client-side idle timeout may look from the server: the timer is
/// armed when the client sends, the server stamps the request when it reads it, which a loaded machine
/// delays (0.15 s was seen at load 8). Checks that need the exact lower bound measure on the client.
let arrivalSkew: TimeInterval = 0.3

/// Checks that every gap is at least its lower bound and at most its upper bound (plus slack).
func expectGaps(
    _ measured: [TimeInterval], within bounds: [ClosedRange<TimeInterval>], slack: TimeInterval = schedulingSlack,
    early: TimeInterval = clockTolerance, sourceLocation: SourceLocation = #_sourceLocation
) {
    #expect(measured.count == bounds.count, "gaps \(measured)", sourceLocation: sourceLocation)
    for (gap, bound) in zip(measured, bounds) {
        #expect(
            gap >= bound.lowerBound - early && gap <= bound.upperBound + slack,
            "gap \(gap) outside \(bound) (-\(early), +\(slack))", sourceLocation: sourceLocation)
    }
}

/// A thread-safe counter for route handlers.
final class Counter: @unchecked Sendable {
    // Safe: `value` is only touched under `lock`.
    private let lock = NSLock()
    private var value = 0

    /// Adds one and returns the new value.
    func next() -> Int {
        lock.lock()
        defer { lock.unlock() }
        value += 1
        return value
    }
}

/// A policy for tests: `attempts`, fixed backoff `backoff` (no jitter, multiplier 1) unless given.
func testPolicy(
    attempts: Int, backoff: TimeInterval = 0.05, multiplier: Double = 1, cap: TimeInterval = 30, jitter: Double = 0,
    deadline: TimeInterval? = nil
) -> RetryPolicy {
    RetryPolicy(
        maximumAttempts: attempts, initialBackoff: backoff, backoffMultiplier: multiplier, maximumBackoff: cap,
        jitter: jitter, deadline: deadline)
}

extension ConnectionError {
    /// The URLError code of a transport error.
    var urlErrorCode: URLError.Code? { urlError?.code }
}
