import Foundation
import Testing

/// Runs a suite's tests on threads of the test run's own instead of Swift's cooperative pool.
///
/// The pool has one thread per core (two on CI). A test that blocks its thread — product code that
/// fsyncs, a synchronous parse of a large input, Foundation's own waits — held one of the two, and at the
/// start of a parallel run every other test's task waited behind a few of them while its own deadlines
/// (`within(30, …)`) ran out. On these threads a blocked test holds only its own; the CPU is still shared by
/// the OS, so a test's time limits still measure a loaded machine.
struct OffThePool: SuiteTrait, TestTrait, TestScoping {
    var isRecursive: Bool { true }

    func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        guard testCase != nil || !test.isSuite, let threads = TestThreads.shared else { return try await function() }
        guard #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *) else {
            return try await function()
        }
        try await withTaskExecutorPreference(threads) { try await function() }
    }
}

extension Trait where Self == OffThePool {
    /// Runs the tests on the test run's own threads, not on Swift's cooperative pool (``OffThePool``).
    static var offThePool: Self { OffThePool() }
}

/// A fixed set of threads that run the jobs of the tests' tasks, first in first out.
final class TestThreads: @unchecked Sendable {
    // Safe: `jobs` is only touched with `condition` locked.
    /// `CONNECTIONKIT_TEST_THREADS` threads (default 24): enough that a few blocked tests leave the others
    /// room. `0` runs the tests on the cooperative pool instead (`nil` here): CI's sanitizer runs do, where
    /// every test is several times slower and the pool's width keeps as many from running at once as would
    /// push their own time limits.
    static let shared: TestThreads? = {
        let asked = ProcessInfo.processInfo.environment["CONNECTIONKIT_TEST_THREADS"].flatMap { Int($0) } ?? 24
        return asked <= 0 ? nil : TestThreads(count: min(asked, 64))
    }()

    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var head = 0

    private init(count: Int) {
        for index in 0..<count {
            let thread = Thread { [self] in work() }
            thread.name = "tests-\(index)"
            thread.stackSize = 8 << 20
            thread.start()
        }
    }

    fileprivate func append(_ job: UnownedJob) {
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    private func work() {
        guard #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *) else { return }
        let executor = asUnownedTaskExecutor()
        while true {
            condition.lock()
            while head == jobs.count { condition.wait() }
            let job = jobs[head]
            head += 1
            if head > 1_024, head * 2 > jobs.count {
                jobs.removeFirst(head)
                head = 0
            }
            condition.unlock()
            job.runSynchronously(on: executor)
        }
    }
}

@available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
extension TestThreads: TaskExecutor {
    func enqueue(_ job: consuming ExecutorJob) {
        append(UnownedJob(job))
    }
}
