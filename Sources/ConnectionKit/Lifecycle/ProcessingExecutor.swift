import Dispatch

/// Runs the jobs of a task that awaits a run with `value()` on its client's processing queue while it awaits.
///
/// The awaiting task runs its run's processing, hooks and ending itself (``RunInbox``). On the cooperative
/// pool those jobs would wait behind every other ready job of the process: a pool kept busy by CPU-bound
/// work (a test run's first seconds, a service's parsing) delayed a run's processing past its deadline. On
/// the processing queue they get a thread of their own, as a transport's completion always did; the task,
/// its task-locals and its cancellation are the caller's.
///
/// The conformance to `TaskExecutor` is available where task executors are (Linux; macOS 15, iOS 18 and
/// their peers); elsewhere ``ConnectionClient/whileAwaitingARun(_:)`` waits where the task runs.
final class ProcessingExecutor: Sendable {
    fileprivate let queue: DispatchQueue

    init(queue: DispatchQueue) {
        self.queue = queue
    }
}

@available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
extension ProcessingExecutor: TaskExecutor {
    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}
