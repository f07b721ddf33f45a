import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `ChildProcessHelper` (Tests/ChildProcessHelper), started as a separate process.
final class ChildProcess: @unchecked Sendable {
    // Safe: `output` and `hasExited` are only touched under `condition`; the rest is set before `run()`.
    private let process = Process()
    private let input = Pipe()
    private let outputPipe = Pipe()
    private let condition = NSCondition()
    private var output = Data()
    private var hasExited = false

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
        process.terminationHandler = { [weak self] _ in self?.update { $0.hasExited = true } }
        outputPipe.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let chunk = handle.availableData
            guard !chunk.isEmpty else { return }
            self?.update { $0.output.append(chunk) }
        }
        try process.run()
        // The child has its own copies; without closing ours, reading to the end would never see the end.
        try? outputPipe.fileHandleForWriting.close()
        try? input.fileHandleForReading.close()
    }

    private func update(_ change: (ChildProcess) -> Void) {
        condition.lock()
        change(self)
        condition.broadcast()
        condition.unlock()
    }

    /// Waits (up to `timeout` seconds) until `done` holds for the output printed so far, or the helper exited.
    private func wait(timeout: TimeInterval, until done: (String) -> Bool) -> (done: Bool, printed: String) {
        let deadline = Date().addingTimeInterval(timeout)
        condition.lock()
        defer { condition.unlock() }
        while true {
            let printed = String(decoding: output, as: UTF8.self)
            if done(printed) { return (true, printed) }
            if hasExited || !condition.wait(until: deadline) { return (done(printed), printed) }
        }
    }

    /// Waits until the helper printed `line` (a whole line); records an issue after `timeout` seconds or
    /// when the helper exits without printing it.
    @discardableResult
    func waitForLine(_ line: String, timeout: TimeInterval) -> Bool {
        let result = wait(timeout: timeout) { $0.split(separator: "\n").contains(Substring(line)) }
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
    func finish(timeout: TimeInterval) -> (status: Int32, printed: String) {
        // Returns when the helper exited or at the deadline.
        _ = wait(timeout: timeout, until: { _ in false })
        if process.isRunning {
            Issue.record("ChildProcessHelper did not exit within \(timeout) s; killed")
            kill(process.processIdentifier, SIGKILL)
        }
        process.waitUntilExit()
        outputPipe.fileHandleForReading.readabilityHandler = nil
        let rest = outputPipe.fileHandleForReading.readDataToEndOfFile()
        condition.lock()
        output.append(rest)
        let printed = String(decoding: output, as: UTF8.self)
        condition.unlock()
        return (process.terminationStatus, printed)
    }
}
