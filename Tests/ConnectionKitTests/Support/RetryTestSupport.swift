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

/// Records every ending of a request (there must be exactly one) and lets a test wait for the first.
final class EndingRecorder: @unchecked Sendable {
    // Safe: `endings` is only touched under `lock`.
    private let lock = NSLock()
    private var endings: [Ending] = []
    private let ended = DispatchSemaphore(value: 0)
    let queue = DispatchQueue(label: "ConnectionKitTests.endings")

    /// Sets the request's handlers and a private callback queue.
    func attach<Output: Sendable>(
        to request: ConnectionRequest<Output>, transform: @escaping @Sendable (Output) -> Data
    ) {
        request.callbackQueue = queue
        request.completionHandler = { [self] output in record(.success(transform(output))) }
        request.failureHandler = { [self] error in
            record(.failure(error as? ConnectionError ?? ConnectionError(.other(underlying: error))))
        }
    }

    func attach(to request: ConnectionRequest<Data>) {
        attach(to: request, transform: { $0 })
    }

    private func record(_ ending: Ending) {
        lock.lock()
        endings.append(ending)
        lock.unlock()
        ended.signal()
    }

    /// Waits for the first ending (failing the test after `timeout` seconds), then checks that no
    /// second one was queued behind it.
    func wait(_ timeout: TimeInterval = 15, sourceLocation: SourceLocation = #_sourceLocation) -> Ending? {
        guard ended.wait(timeout: .now() + timeout) == .success else {
            Issue.record("no ending within \(timeout) s", sourceLocation: sourceLocation)
            return nil
        }
        queue.sync {}
        lock.lock()
        defer { lock.unlock() }
        #expect(endings.count == 1, "endings: \(endings.count)", sourceLocation: sourceLocation)
        return endings.first
    }

    var count: Int {
        lock.lock()
        defer { lock.unlock() }
        return endings.count
    }
}

/// Starts `request` and waits for its one ending.
func run(_ request: RetryingRequest, timeout: TimeInterval = 15, sourceLocation: SourceLocation = #_sourceLocation)
    -> Ending?
{
    let recorder = EndingRecorder()
    recorder.attach(to: request)
    request.start()
    return recorder.wait(timeout, sourceLocation: sourceLocation)
}

/// Seconds between consecutive requests the server received for `path`.
func gaps(_ server: TestServer, _ path: String) -> [TimeInterval] {
    let times = server.receivedRequests(path).map(\.receivedAt)
    return zip(times.dropFirst(), times).map { $0.timeIntervalSince($1) }
}

/// How late a timer may fire on a loaded 2-core machine running tests in parallel.
let schedulingSlack: TimeInterval = 1.5
/// How early a gap may look: timestamps are taken on different threads.
let clockTolerance: TimeInterval = 0.01

/// Checks that every gap is at least its lower bound and at most its upper bound (plus slack).
func expectGaps(
    _ measured: [TimeInterval], within bounds: [ClosedRange<TimeInterval>], slack: TimeInterval = schedulingSlack,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    #expect(measured.count == bounds.count, "gaps \(measured)", sourceLocation: sourceLocation)
    for (gap, bound) in zip(measured, bounds) {
        #expect(
            gap >= bound.lowerBound - clockTolerance && gap <= bound.upperBound + slack,
            "gap \(gap) outside \(bound) (+\(slack))", sourceLocation: sourceLocation)
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
    var urlErrorCode: URLError.Code? {
        if case .transport(let error) = kind { return error.code }
        return nil
    }
}
