import ConnectionKitTesting
import Foundation

/// Independent checks of a saved file against a `.generated` body: byte by byte in 1 MiB blocks,
/// and SHA-256 through the system's `sha256sum` (an oracle that does not share ConnectionKit's code).
/// Each reads or hashes megabytes: on a thread of its own, not the test's pool thread (see `onOwnThread`).
enum FileChecks {
    /// Whether `file` holds exactly the generated stream of `length` bytes for `seed`.
    static func matchesGenerated(_ file: URL, length: Int64, seed: UInt8) async throws -> Bool {
        try await onOwnThread { try compareWithGenerated(file, length: length, seed: seed) }
    }

    private static func compareWithGenerated(_ file: URL, length: Int64, seed: UInt8) throws -> Bool {
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
    static func sha256sum(of file: URL) async throws -> String? {
        try await onOwnThread { try runSHA256Sum(arguments: [file.path], input: nil) }
    }

    /// `sha256sum` of the generated stream, fed through a pipe one block at a time.
    static func sha256sumOfGenerated(length: Int64, seed: UInt8) async throws -> String? {
        try await onOwnThread {
            try runSHA256Sum(
                arguments: [],
                input: { pipe in
                    TestBody.forEachGeneratedBlock(length: length, seed: seed, blockSize: 1 << 20) { block in
                        pipe.write(block)
                    }
                })
        }
    }

    private static func runSHA256Sum(arguments: [String], input: ((FileHandle) -> Void)?) throws -> String? {
        let tool = "/usr/bin/sha256sum"
        guard FileManager.default.isExecutableFile(atPath: tool) else { return nil }
        // Both pipes are read to their end by threads of their own, with a deadline (a stalled child
        // fails the test); a readability handler could append its last chunk after the result was read.
        let finished = try ProcessOutput.run(tool, arguments, timeout: 120, input: input)
        guard finished.status == 0 else { return nil }
        return finished.output.split(separator: " ").first.map(String.init)
    }
}
