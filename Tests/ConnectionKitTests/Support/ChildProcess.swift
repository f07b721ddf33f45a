import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `ChildProcessHelper` (Tests/ChildProcessHelper), started as a separate process.
final class ChildProcess: @unchecked Sendable {
    // Safe: every property is a `let` set before `run()`; `output` is thread-safe.
    private let process = Subprocess()
    private let input = Pipe()
    private let outputPipe = Pipe()
    private let output = ProcessOutput()

    /// Where `swift build` / `swift test` put the helper: beside the test bundle.
    static let helperURL = BuiltExecutable.url(named: "ChildProcessHelper")

    /// Starts the helper with `arguments`; `environment` replaces the whole environment when given.
    init(_ arguments: [String], environment: [String: String]? = nil) throws {
        let helper = try #require(Self.helperURL, "ChildProcessHelper was not built beside the tests")
        process.executableURL = helper
        process.arguments = arguments
        if let environment { process.environment = environment }
        process.standardInput = input
        process.standardOutput = outputPipe
        output.collect(outputPipe, of: process)
        try process.run()
        // The child has its own copies; without closing ours, reading to the end would never see the end.
        try? outputPipe.fileHandleForWriting.close()
        try? input.fileHandleForReading.close()
    }

    /// Waits until the helper printed `line` (a whole line); records an issue after `timeout` seconds or
    /// when the helper exits without printing it.
    @discardableResult
    func waitForLine(_ line: String, timeout: TimeInterval) async -> Bool {
        let output = output
        let result = await onOwnThread {
            output.wait(timeout: timeout) { $0.split(separator: "\n").contains(Substring(line)) }
        }
        if !result.done {
            Issue.record("ChildProcessHelper did not print \(line) within \(timeout) s; printed: \(result.printed)")
        }
        return result.done
    }

    /// Writes a line to the helper's standard input.
    func send(_ line: String) {
        input.fileHandleForWriting.write(Data("\(line)\n".utf8))
    }

    /// Waits for the helper to exit (killing it and recording an issue after `timeout` seconds) and
    /// returns its exit status and everything it printed.
    /// The waits run on a thread of their own (see ``onOwnThread(_:)``).
    func finish(timeout: TimeInterval) async -> (status: Int32, printed: String) {
        let (killed, status, printed) = await onOwnThread { [self] in
            // Returns when the helper exited or at the deadline.
            _ = output.wait(timeout: timeout, until: { _ in false })
            let killed = process.isRunning
            if killed { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
            return (killed, process.terminationStatus, output.finish())
        }
        if killed { Issue.record("ChildProcessHelper did not exit within \(timeout) s; killed") }
        return (status, printed)
    }
}
