import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What a child process printed so far, and whether it exited: the one collector of `ChildProcess` and
/// `Tinyproxy`, whose waits wake on every chunk and on the exit instead of polling.
final class ProcessOutput: @unchecked Sendable {
    // Safe: `output`, `hasExited` and `reachedEnd` are only touched under `condition`.
    private let condition = NSCondition()
    private var output = Data()
    private var hasExited = false
    private var reachedEnd = false

    /// Collects what `process` writes to `pipe` and notes its exit. Call before `process.run()`, and close
    /// this process's copy of the pipe's write end after it.
    ///
    /// The pipe is read by a thread of its own with plain `read(2)`, never a `readabilityHandler`: such a
    /// handler is a libdispatch read source, and tearing one down while other sources come and go corrupts
    /// libdispatch's epoll bookkeeping on Linux (swift-corelibs-libdispatch#949): a CI run crashed with
    /// SIGSEGV in `_dispatch_unote_unregister_muxed`. A blocking read registers nothing with libdispatch.
    func collect(_ pipe: Pipe, of process: Subprocess) {
        process.terminationHandler = { [weak self] _ in self?.update { $0.hasExited = true } }
        readToEnd(pipe.fileHandleForReading)
    }

    /// Reads `handle` to its end on a thread of its own, which holds the handle (and so its descriptor) open
    /// until then.
    fileprivate func readToEnd(_ handle: FileHandle) {
        let thread = Thread { [self] in
            let descriptor = handle.fileDescriptor
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                update { output in
                    if count > 0 {
                        output.output.append(contentsOf: buffer[0..<count])
                    } else {
                        output.reachedEnd = true
                    }
                }
                if count <= 0 { return }
            }
        }
        thread.start()
    }

    /// Everything printed so far.
    var printed: String {
        condition.lock()
        defer { condition.unlock() }
        return String(decoding: output, as: UTF8.self)
    }

    /// Waits until the pipe reached its end (every writer closed it: the child exited) or `timeout` seconds
    /// passed, and returns everything printed.
    func finish(timeout: TimeInterval = 10) -> String {
        _ = waitForEnd(until: Date().addingTimeInterval(timeout))
        return printed
    }

    /// Waits until the pipe reached its end; `false` when `deadline` passed first.
    fileprivate func waitForEnd(until deadline: Date) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while !reachedEnd {
            if !condition.wait(until: deadline) { return reachedEnd }
        }
        return true
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

    /// ``wait(timeout:until:)`` for a test function: the wait blocks a thread of its own, not the test's
    /// pool thread (see `onOwnThread`).
    func waited(timeout: TimeInterval, until done: @escaping @Sendable (String) -> Bool) async -> (
        done: Bool, printed: String
    ) {
        await onOwnThread { self.wait(timeout: timeout, until: done) }
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
    ///
    /// Each pipe is read by a thread of its own (see ``collect(_:of:)`` for why not a `readabilityHandler`).
    ///
    /// `input`, when given, writes the child's standard input (on the calling thread, while both pipes are
    /// read), which is closed after it returns.
    static func run(
        _ executable: String, _ arguments: [String], timeout: TimeInterval,
        input: ((FileHandle) -> Void)? = nil
    ) throws -> FinishedProcess {
        let process = Subprocess()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let (outputPipe, errorPipe, inputPipe) = (Pipe(), Pipe(), Pipe())
        process.standardOutput = outputPipe
        process.standardError = errorPipe
        if input != nil { process.standardInput = inputPipe }
        try process.run()
        try? outputPipe.fileHandleForWriting.close()
        try? errorPipe.fileHandleForWriting.close()
        let (output, errors) = (ProcessOutput(), ProcessOutput())
        output.readToEnd(outputPipe.fileHandleForReading)
        errors.readToEnd(errorPipe.fileHandleForReading)
        if let input {
            try? inputPipe.fileHandleForReading.close()
            input(inputPipe.fileHandleForWriting)
            try? inputPipe.fileHandleForWriting.close()
        }
        // Both pipes reach their end when the child (and whatever inherited them) exited.
        let deadline = Date().addingTimeInterval(timeout)
        let ended = output.waitForEnd(until: deadline) && errors.waitForEnd(until: deadline)
        if !ended { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        guard ended else { throw TestTimeout() }
        return FinishedProcess(status: process.terminationStatus, output: output.printed, errors: errors.printed)
    }
}
