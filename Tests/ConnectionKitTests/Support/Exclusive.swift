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
            try await Self.withinWorkLimit(function)
        } catch {
            await ExclusiveGate.shared.release()
            throw error
        }
        await ExclusiveGate.shared.release()
    }

    /// How long an exclusive test may run once it holds the gate. A suite's `.timeLimit` also counts the
    /// time spent waiting for the gate behind every other exclusive test (minutes, on a loaded machine),
    /// so suites with exclusive tests set a generous one and this limit bounds the test's own work.
    static let workLimit: Duration = .seconds(180)

    /// Runs `function`, recording an issue when it runs longer than ``workLimit`` (the suite's
    /// `.timeLimit` still ends a test that never returns).
    private static func withinWorkLimit(_ function: @Sendable () async throws -> Void) async throws {
        // An unstructured task inherits this task's task-locals, so the issue is recorded as the test's.
        let watchdog = Task {
            try await Task.sleep(for: workLimit)
            Issue.record("the test ran for more than \(workLimit) once it held the exclusive gate")
        }
        defer { watchdog.cancel() }
        try await function()
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
