import Foundation

/// What a child process printed so far, and whether it exited: the one collector of `ChildProcess` and
/// `Tinyproxy`, whose waits wake on every chunk and on the exit instead of polling.
final class ProcessOutput: @unchecked Sendable {
    // Safe: `output` and `hasExited` are only touched under `condition`.
    private let condition = NSCondition()
    private var output = Data()
    private var hasExited = false

    /// Collects what `process` writes to `pipe` and notes its exit. Call before `process.run()`.
    func collect(_ pipe: Pipe, of process: Process) {
        process.terminationHandler = { [weak self] _ in self?.update { $0.hasExited = true } }
        pipe.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let chunk = handle.availableData
            guard !chunk.isEmpty else { return }
            self?.update { $0.output.append(chunk) }
        }
    }

    /// Everything printed so far.
    var printed: String {
        condition.lock()
        defer { condition.unlock() }
        return String(decoding: output, as: UTF8.self)
    }

    /// Adds what was read after the readability handler stopped, and returns everything printed.
    func finish(with rest: Data) -> String {
        condition.lock()
        defer { condition.unlock() }
        output.append(rest)
        return String(decoding: output, as: UTF8.self)
    }

    /// Waits until `done` holds for the output so far, the process exited, or `timeout` seconds passed.
    func wait(timeout: TimeInterval, until done: (String) -> Bool) -> (done: Bool, printed: String) {
        let deadline = Date().addingTimeInterval(timeout)
        condition.lock()
        defer { condition.unlock() }
        while true {
            let printed = String(decoding: output, as: UTF8.self)
            if done(printed) { return (true, printed) }
            if hasExited || !condition.wait(until: deadline) { return (done(printed), printed) }
        }
    }

    private func update(_ change: (ProcessOutput) -> Void) {
        condition.lock()
        change(self)
        condition.broadcast()
        condition.unlock()
    }
}
