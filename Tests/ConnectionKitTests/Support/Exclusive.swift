import Testing

/// Runs a test alone among the tests marked `.exclusive`.
///
/// On Linux every URLSession in a process shares one serial work queue (docs/linux.md), so a test that
/// floods it (thousands of requests or cancels) delays every other transfer in the test process by
/// seconds. Tests that do that, and tests that measure time (timeouts, drips, backoff delays), carry
/// this trait so that they never overlap; all other tests still run in parallel.
struct ExclusiveTrait: TestTrait, SuiteTrait, TestScoping {
    var isRecursive: Bool { true }

    func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        guard !test.isSuite else {
            try await function()
            return
        }
        await ExclusiveGate.shared.acquire()
        do {
            try await function()
        } catch {
            await ExclusiveGate.shared.release()
            throw error
        }
        await ExclusiveGate.shared.release()
    }
}

extension Trait where Self == ExclusiveTrait {
    /// Never overlaps another `.exclusive` test (see ``ExclusiveTrait``).
    static var exclusive: Self { ExclusiveTrait() }
}

/// A first-come, first-served async mutex.
actor ExclusiveGate {
    static let shared = ExclusiveGate()
    private var busy = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    func acquire() async {
        guard busy else {
            busy = true
            return
        }
        await withCheckedContinuation { waiters.append($0) }
    }

    func release() {
        if waiters.isEmpty {
            busy = false
        } else {
            waiters.removeFirst().resume()
        }
    }
}
