import ConnectionKitTesting
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Independent checks of a saved file against a `.generated` body: byte by byte in 1 MiB blocks,
/// and SHA-256 through the system's `sha256sum` (an oracle that does not share ConnectionKit's code).
enum FileChecks {
    /// Whether `file` holds exactly the generated stream of `length` bytes for `seed`.
    static func matchesGenerated(_ file: URL, length: Int64, seed: UInt8) throws -> Bool {
        let handle = try FileHandle(forReadingFrom: file)
        defer { try? handle.close() }
        var matches = true
        try TestBody.forEachGeneratedBlock(length: length, seed: seed, blockSize: 1 << 20) { expected in
            guard matches else { return }
            let actual = try handle.read(upToCount: expected.count) ?? Data()
            if actual != expected { matches = false }
        }
        let trailing = try handle.read(upToCount: 1) ?? Data()
        return matches && trailing.isEmpty
    }

    /// `sha256sum` of a file, or `nil` when the tool is missing.
    static func sha256sum(of file: URL) throws -> String? {
        try runSHA256Sum(arguments: [file.path], input: nil)
    }

    /// `sha256sum` of the generated stream, fed through a pipe one block at a time.
    static func sha256sumOfGenerated(length: Int64, seed: UInt8) throws -> String? {
        try runSHA256Sum(
            arguments: [],
            input: { pipe in
                TestBody.forEachGeneratedBlock(length: length, seed: seed, blockSize: 1 << 20) { block in
                    pipe.write(block)
                }
            })
    }

    private static func runSHA256Sum(arguments: [String], input: ((FileHandle) -> Void)?) throws -> String? {
        let tool = URL(fileURLWithPath: "/usr/bin/sha256sum")
        guard FileManager.default.isExecutableFile(atPath: tool.path) else { return nil }
        let process = Process()
        process.executableURL = tool
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        let feed = Pipe()
        if input != nil { process.standardInput = feed }
        // Its output is read as it comes, and its end awaited with a deadline (a stalled child fails the test).
        let collected = ProcessOutput()
        collected.collect(output, of: process)
        try process.run()
        try? output.fileHandleForWriting.close()
        if let input {
            input(feed.fileHandleForWriting)
            try feed.fileHandleForWriting.close()
        }
        _ = collected.wait(timeout: 120) { _ in false }
        let stalled = process.isRunning
        if stalled { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        output.fileHandleForReading.readabilityHandler = nil
        let text = collected.finish(with: output.fileHandleForReading.readDataToEndOfFile())
        guard !stalled else { throw TestTimeout() }
        return text.split(separator: " ").first.map(String.init)
    }
}
