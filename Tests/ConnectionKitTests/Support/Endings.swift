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

/// Suspends until `signal` is called or `timeout` passes; `register` receives the signal function.
/// Returns whether the signal came (false on timeout).
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
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout) { finish(false) }
    }
}

/// Records every ending (completion or failure call) of a request, so that tests can await the first
/// and check there was exactly one.
final class Endings<Output: Sendable>: Sendable {
    private struct State {
        var results: [Result<Output, any Error>] = []
        var waiters: [@Sendable () -> Void] = []
    }

    private let state = Locked(State())
    let queue: DispatchQueue

    /// Installs handlers on `request` that record its endings.
    init(_ request: ConnectionRequest<Output>, queue: DispatchQueue = testCallbackQueue) {
        self.queue = queue
        request.callbackQueue = queue
        request.completionHandler = { [self] value in record(.success(value)) }
        request.failureHandler = { [self] error in record(.failure(error)) }
    }

    private func record(_ result: Result<Output, any Error>) {
        let ready = state.withLock { state in
            state.results.append(result)
            defer { state.waiters = [] }
            return state.waiters
        }
        ready.forEach { $0() }
    }

    /// How many endings were recorded.
    var count: Int { state.withLock { $0.results.count } }

    /// All endings so far.
    var all: [Result<Output, any Error>] { state.withLock { $0.results } }

    /// The first ending, waiting up to `timeout` seconds; records an issue and throws if none came.
    func first(timeout: TimeInterval = 15, sourceLocation: SourceLocation = #_sourceLocation) async throws -> Result<
        Output, any Error
    > {
        _ = await waitForSignal(timeout: timeout) { signal in
            let now = state.withLock { state -> Bool in
                if !state.results.isEmpty { return true }
                state.waiters.append(signal)
                return false
            }
            if now { signal() }
        }
        guard let first = state.withLock({ $0.results.first }) else {
            Issue.record("no ending within \(timeout) s", sourceLocation: sourceLocation)
            throw TestTimeout()
        }
        return first
    }

    /// The first ending's error as a `ConnectionError`; records an issue when it was a success or another type.
    func connectionError(timeout: TimeInterval = 15, sourceLocation: SourceLocation = #_sourceLocation) async throws
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
    func value(timeout: TimeInterval = 15, sourceLocation: SourceLocation = #_sourceLocation) async throws -> Output {
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
