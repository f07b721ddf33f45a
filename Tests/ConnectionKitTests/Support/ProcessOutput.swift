import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

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

/// A short command run to its end: its exit status and what it printed on each stream.
struct FinishedProcess {
    var status: Int32
    var output: String
    var errors: String
}

extension ProcessOutput {
    /// Runs `executable` with `arguments` to its end, reading standard output and standard error as they
    /// come (a full pipe never blocks the child); kills it after `timeout` seconds and throws
    /// ``TestTimeout``. Every read has that deadline.
    static func run(_ executable: String, _ arguments: [String], timeout: TimeInterval) throws -> FinishedProcess {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let (outputPipe, errorPipe) = (Pipe(), Pipe())
        process.standardOutput = outputPipe
        process.standardError = errorPipe
        let (output, errors) = (ProcessOutput(), ProcessOutput())
        // The second `collect` owns the termination handler: `output` is the one waited on.
        errors.collect(errorPipe, of: process)
        output.collect(outputPipe, of: process)
        try process.run()
        try? outputPipe.fileHandleForWriting.close()
        try? errorPipe.fileHandleForWriting.close()
        // Returns when the child exited or at the deadline.
        _ = output.wait(timeout: timeout) { _ in false }
        let stalled = process.isRunning
        if stalled { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        outputPipe.fileHandleForReading.readabilityHandler = nil
        errorPipe.fileHandleForReading.readabilityHandler = nil
        let printed = output.finish(with: outputPipe.fileHandleForReading.readDataToEndOfFile())
        let complaint = errors.finish(with: errorPipe.fileHandleForReading.readDataToEndOfFile())
        guard !stalled else { throw TestTimeout() }
        return FinishedProcess(status: process.terminationStatus, output: printed, errors: complaint)
    }
}
