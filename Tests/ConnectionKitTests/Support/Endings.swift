import ConnectionKit
import Foundation
import Testing

/// A serial queue for handlers in tests (the main queue works too, but tests should not depend on it).
let testCallbackQueue = DispatchQueue(label: "ConnectionKitTests.callbacks")

/// A tiny lock box for test bookkeeping.
final class Locked<Value>: @unchecked Sendable {
    // Safe: `value` is only touched while `lock` is held.
    private var value: Value
    private let lock = NSLock()
    init(_ value: Value) { self.value = value }
    func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}

extension Locked where Value == Int {
    /// Adds one and returns the new count: a route's hit number, 1 for the first hit.
    func increment() -> Int {
        withLock { count in
            count += 1
            return count
        }
    }
}

/// Suspends until `signal` is called or `timeout` passes; `register` receives the signal function.
/// Returns whether the signal came (false on timeout).
/// How many times longer every wait of a test may take: `CONNECTIONKIT_TEST_TIME_SCALE` (default 1). CI's sanitizer
/// runs set it: under TSan every thread of the test process stood still for about 45 s at the start of a run, which
/// a wait bounded for a plain run would count against the code it waits for.
let testTimeScale: Double = {
    let asked = ProcessInfo.processInfo.environment["CONNECTIONKIT_TEST_TIME_SCALE"].flatMap { Double($0) } ?? 1
    return min(max(asked, 1), 20)
}()

func waitForSignal(timeout: TimeInterval, _ register: (@escaping @Sendable () -> Void) -> Void) async -> Bool {
    let fired = Locked<Bool?>(nil)
    return await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
        let finish: @Sendable (Bool) -> Void = { value in
            let first = fired.withLock { state -> Bool in
                guard state == nil else { return false }
                state = value
                return true
            }
            if first { continuation.resume(returning: value) }
        }
        register { finish(true) }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout * testTimeScale) { finish(false) }
    }
}

/// The endings of one request, typed: a view of an ``EndingRecorder`` for tests that await the ending.
struct Endings<Output: Sendable>: Sendable {
    let recorder: EndingRecorder
    let request: ConnectionRequest<Output>
    let queue: DispatchQueue

    /// Installs handlers on `request` that record its endings on `queue`; `settle` is how long the
    /// check for a second ending watches (see ``EndingRecorder``).
    init(
        _ request: ConnectionRequest<Output>, queue: DispatchQueue = testCallbackQueue,
        settle: TimeInterval = EndingRecorder.defaultSettle
    ) {
        self.recorder = EndingRecorder(settle: settle)
        self.request = request
        self.queue = queue
        recorder.track(request, queue: queue)
    }

    /// How many endings were recorded.
    var count: Int { recorder.count(request) }

    /// When each ending was recorded.
    var dates: [Date] { recorder.dates(request) }

    /// The first ending, waiting up to `timeout` seconds; records an issue and throws if none came. Before
    /// returning it checks that no second ending followed (see ``EndingRecorder``).
    func first(timeout: TimeInterval = 60, sourceLocation: SourceLocation = #_sourceLocation) async throws -> Result<
        Output, any Error
    > {
        guard await recorder.ended(within: timeout, sourceLocation: sourceLocation),
            let first = recorder.first(of: request)
        else { throw TestTimeout() }
        return first
    }

    /// The first ending's error as a `ConnectionError`; records an issue when it was a success or another type.
    func connectionError(timeout: TimeInterval = 60, sourceLocation: SourceLocation = #_sourceLocation) async throws
        -> ConnectionError
    {
        switch try await first(timeout: timeout, sourceLocation: sourceLocation) {
        case .success(let value):
            Issue.record("expected a failure, got \(value)", sourceLocation: sourceLocation)
            throw UnexpectedOutcome()
        case .failure(let error):
            guard let error = error as? ConnectionError else {
                Issue.record("expected a ConnectionError, got \(error)", sourceLocation: sourceLocation)
                throw UnexpectedOutcome()
            }
            return error
        }
    }

    /// The first ending's value; records an issue when it was a failure.
    func value(timeout: TimeInterval = 60, sourceLocation: SourceLocation = #_sourceLocation) async throws -> Output {
        switch try await first(timeout: timeout, sourceLocation: sourceLocation) {
        case .success(let value):
            return value
        case .failure(let error):
            Issue.record("expected a success, got \(error)", sourceLocation: sourceLocation)
            throw error
        }
    }

    /// Starts `request` and returns its failure.
    func connectionErrorAfterStart(_ request: AnyConnectionRequest, sourceLocation: SourceLocation = #_sourceLocation)
        async throws -> ConnectionError
    {
        request.start()
        return try await connectionError(sourceLocation: sourceLocation)
    }
}

struct TestTimeout: Error {}
struct UnexpectedOutcome: Error {}

extension DispatchQueue {
    /// Returns once every block queued on this (serial) queue before the call has run.
    func drain() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            async { continuation.resume() }
        }
    }
}

/// Runs `operation` and returns its value, giving up after `seconds`: then records an issue (naming
/// `what`), cancels the operation and throws ``TestTimeout``. For awaits that could otherwise hang a test.
func within<T: Sendable>(
    _ seconds: TimeInterval, _ what: String, sourceLocation: SourceLocation = #_sourceLocation,
    _ operation: @escaping @Sendable () async -> T
) async throws -> T {
    let result = Locked<T?>(nil)
    let work = Task {
        let value = await operation()
        result.withLock { $0 = value }
    }
    let finished = await waitForSignal(timeout: seconds) { signal in
        Task {
            await work.value
            signal()
        }
    }
    guard finished, let value = result.withLock({ $0 }) else {
        work.cancel()
        Issue.record("\(what) did not come within \(seconds) s", sourceLocation: sourceLocation)
        throw TestTimeout()
    }
    return value
}
