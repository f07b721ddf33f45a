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
    /// Each pipe is read by a thread of its own with plain `read(2)`, not a `readabilityHandler`: such a
    /// handler is a dispatch source on the pipe's descriptor, which Foundation may close before the
    /// source's cancellation has run, and libdispatch's event loop can then crash on the reused
    /// descriptor (`_dispatch_event_loop_drain`, the crash family of swift-corelibs-foundation#4791).
    /// A loaded CI run crashed there while the TLS tests ran their many short `openssl` commands.
    ///
    /// `input`, when given, writes the child's standard input (on the calling thread, while both pipes are
    /// read), which is closed after it returns.
    static func run(
        _ executable: String, _ arguments: [String], timeout: TimeInterval,
        input: ((FileHandle) -> Void)? = nil
    ) throws -> FinishedProcess {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let (outputPipe, errorPipe, inputPipe) = (Pipe(), Pipe(), Pipe())
        process.standardOutput = outputPipe
        process.standardError = errorPipe
        if input != nil { process.standardInput = inputPipe }
        try process.run()
        try? outputPipe.fileHandleForWriting.close()
        try? errorPipe.fileHandleForWriting.close()
        let output = PipeReader(outputPipe.fileHandleForReading)
        let errors = PipeReader(errorPipe.fileHandleForReading)
        if let input {
            try? inputPipe.fileHandleForReading.close()
            input(inputPipe.fileHandleForWriting)
            try? inputPipe.fileHandleForWriting.close()
        }
        // Both pipes reach their end when the child (and whatever inherited them) exited.
        let deadline = Date().addingTimeInterval(timeout)
        let ended = output.wait(until: deadline) && errors.wait(until: deadline)
        if !ended { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        guard ended else { throw TestTimeout() }
        return FinishedProcess(status: process.terminationStatus, output: output.text, errors: errors.text)
    }
}

/// Reads a pipe to its end on a thread of its own, which holds the pipe's handle (and so its descriptor
/// open) until it is done.
private final class PipeReader: @unchecked Sendable {
    // Safe: `bytes` and `isDone` are only touched under `condition`.
    private let condition = NSCondition()
    private var bytes = Data()
    private var isDone = false

    init(_ handle: FileHandle) {
        let thread = Thread { [self] in
            let descriptor = handle.fileDescriptor
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                condition.lock()
                if count > 0 { bytes.append(contentsOf: buffer[0..<count]) } else { isDone = true }
                condition.broadcast()
                condition.unlock()
                if count <= 0 { return }
            }
        }
        thread.start()
    }

    /// Waits until the pipe reached its end; `false` when `deadline` passed first.
    func wait(until deadline: Date) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while !isDone {
            if !condition.wait(until: deadline) { return isDone }
        }
        return true
    }

    /// What was read, as text.
    var text: String {
        condition.lock()
        defer { condition.unlock() }
        return String(decoding: bytes, as: UTF8.self)
    }
}
