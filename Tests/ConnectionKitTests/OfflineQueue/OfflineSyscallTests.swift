import ConnectionKitTesting
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Power loss, below the model: the crash helper enqueues under `strace`, and the trace of what the process
/// asked the kernel for is held to the durability promises. `OfflinePowerLossTests` checks the queue against a
/// model of the calls it makes to its file layer; this checks that layer's calls reach the kernel, in order.
@Suite("OfflineQueue system calls", .offThePool, .exclusive, .timeLimit(.minutes(5)))
struct OfflineSyscallTests {
    /// `strace` on the `PATH`, if any.
    static let strace: URL? = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        .split(separator: ":").map { URL(fileURLWithPath: String($0)).appendingPathComponent("strace") }
        .first { FileManager.default.isExecutableFile(atPath: $0.path) }

    static let writes = 24

    @Test("each acknowledged write was synced, and each folder entry the queue made was synced, before the ack")
    func acknowledgedWritesAndFolderEntriesReachTheDiskFirst() async throws {
        let trace = try await Self.traceEnqueues()
        let acks = trace.acks
        #expect(acks.count == Self.writes, "the helper acknowledged \(acks.count) of \(Self.writes) writes")
        for ack in acks {
            trace.expectSynced(ack)
        }
        let entries = trace.folderEntries
        // Vacuity guards: the queue folder, its subfolders, the journal segment and the body files were seen.
        #expect(
            entries.filter { $0.kind == "mkdir" }.count >= 6, "mkdirs seen: \(entries.filter { $0.kind == "mkdir" })")
        #expect(entries.contains { $0.kind == "rename" && $0.path.contains("/bodies/") })
        #expect(entries.contains { $0.kind == "create" && $0.path.contains("/journal/") })
        for entry in entries {
            trace.expectFolderSynced(after: entry)
        }
    }

    /// Runs the helper under strace: it creates a queue in a fresh folder and enqueues `writes` writes (every
    /// fourth with a body file) against a server that is down. Returns the parsed trace.
    static func traceEnqueues() async throws -> SyscallTrace {
        let strace = try #require(strace)
        let helper = try #require(
            BuiltExecutable.url(named: "OfflineQueueCrashHelper"), "OfflineQueueCrashHelper was not built")
        let scratch = OfflineFixtures.temporaryDirectory()
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        // The paths strace prints for descriptors are resolved; so are these.
        let root = URL(fileURLWithPath: try #require(realpath(scratch.path, nil).map { String(cString: $0) }))
        let queueFolder = root.appendingPathComponent("queue").path
        let traceFile = root.appendingPathComponent("trace").path
        let reservation = try PortReservation()
        let process = Subprocess()
        process.executableURL = strace
        process.arguments = [
            "-f", "-y", "-s", "200000", "-o", traceFile, "-e",
            "trace=fsync,fdatasync,open,openat,creat,write,pwrite64,pwritev,pwritev2,rename,renameat,renameat2,"
                + "mkdir,mkdirat",
            helper.path, "enqueue", queueFolder, reservation.baseURL.absoluteString, String(writes), "1", "4",
        ]
        let pipe = Pipe()
        process.standardOutput = pipe
        let collected = ProcessOutput()
        collected.collect(pipe, of: process)
        try process.run()
        try? pipe.fileHandleForWriting.close()
        let finished = await collected.waited(timeout: 120) { $0.hasSuffix("DONE\n") }
        _ = await collected.waited(timeout: 30) { _ in false }
        if process.isRunning {
            Issue.record("the traced helper did not exit in time; killed")
            kill(process.processIdentifier, SIGKILL)
        }
        process.waitUntilExit()
        #expect(finished.done, "the traced helper printed: \(finished.printed.suffix(300))")
        #expect(process.terminationReason == .exit && process.terminationStatus == 0)
        let text = try String(contentsOfFile: traceFile, encoding: .utf8)
        return SyscallTrace(text, queueFolder: queueFolder)
    }
}

/// One system call of an `strace -f -y` trace: its name, its arguments and result, and the lines at which it
/// began and ended (a call another thread interrupted spans two lines).
struct TracedCall: CustomStringConvertible {
    var name: String
    var text: String
    var start: Int
    var end: Int

    /// The descriptor's path (`-y` prints `5</the/path>` for the first argument), if the call takes one.
    var descriptorPath: String? {
        guard let open = text.firstIndex(of: "<"), text[..<open].allSatisfy(\.isNumber),
            let close = text[open...].firstIndex(of: ">")
        else { return nil }
        return String(text[text.index(after: open)..<close])
    }

    /// The quoted path arguments, in order.
    var quotedPaths: [String] {
        text.split(separator: "\"", omittingEmptySubsequences: false).enumerated()
            .filter { $0.offset % 2 == 1 }.map { String($0.element) }
    }

    /// Whether the call returned 0 or more (a descriptor, a count).
    var succeeded: Bool {
        // strace pads a short line with spaces between the `)` and the `=`.
        guard let range = text.range(of: " = ", options: .backwards) else { return false }
        return !text[range.upperBound...].hasPrefix("-")
    }

    var description: String { "line \(start + 1): \(name)(\(text.prefix(160)))" }
}

/// A change to a folder's entries the queue made, which is durable only once that folder is synced.
struct FolderEntry: CustomStringConvertible {
    var kind: String
    var path: String
    var call: TracedCall

    var folder: String { (path as NSString).deletingLastPathComponent }
    var description: String { "\(kind) \(path) (\(call))" }
}

/// An `strace -f -y` trace, parsed into calls.
struct SyscallTrace {
    var calls: [TracedCall] = []
    let queueFolder: String

    init(_ text: String, queueFolder: String) {
        self.queueFolder = queueFolder
        var unfinished: [Substring: (name: String, text: String, start: Int)] = [:]
        for (number, line) in text.split(separator: "\n").enumerated() {
            guard let space = line.firstIndex(of: " ") else { continue }
            let pid = line[..<space]
            let rest = line[space...].drop { $0 == " " }
            if rest.hasPrefix("<... ") {
                guard let begun = unfinished.removeValue(forKey: pid),
                    let resumed = rest.range(of: " resumed>")
                else { continue }
                let text = begun.text + rest[resumed.upperBound...]
                calls.append(TracedCall(name: begun.name, text: text, start: begun.start, end: number))
                continue
            }
            guard let open = rest.firstIndex(of: "(") else { continue }
            let name = String(rest[..<open])
            var arguments = String(rest[rest.index(after: open)...])
            if arguments.hasSuffix(" <unfinished ...>") {
                arguments.removeLast(" <unfinished ...>".count)
                unfinished[pid] = (name, arguments, number)
            } else {
                calls.append(TracedCall(name: name, text: arguments, start: number, end: number))
            }
        }
        calls.sort { $0.start < $1.start }
    }

    /// The helper's `<index> <key>` lines on its standard output: each is printed once `enqueue` returned.
    var acks: [(key: String, call: TracedCall)] {
        calls.compactMap { call in
            guard call.name == "write", call.text.hasPrefix("1<"), let line = call.quotedPaths.first,
                line.hasSuffix("\\n")
            else { return nil }
            let parts = line.dropLast(2).split(separator: " ")
            guard parts.count == 2, Int(parts[0]) != nil else { return nil }
            return (String(parts[1]), call)
        }
    }

    /// Records an issue unless the journal write holding `ack`'s key was followed by a sync of that file that
    /// ended before the acknowledgement was printed.
    func expectSynced(_ ack: (key: String, call: TracedCall)) {
        let written = calls.last {
            ($0.name.hasPrefix("pwrite") || $0.name == "write") && $0.end < ack.call.start
                && $0.text.contains(ack.key) && ($0.descriptorPath ?? "").contains("/journal/")
        }
        guard let written, let file = written.descriptorPath else {
            Issue.record("no journal write holds \(ack.key) before its acknowledgement (\(ack.call))")
            return
        }
        let synced = calls.contains {
            ($0.name == "fdatasync" || $0.name == "fsync") && $0.descriptorPath == file && $0.succeeded
                && $0.start > written.end && $0.end < ack.call.start
        }
        #expect(synced, "\(ack.key) was acknowledged (\(ack.call)) before \(file) was synced after \(written)")
    }

    /// Every folder the queue made, every file it created (the first `O_CREAT` open of a path) and every rename
    /// into its folder, in order. The lock file is left out: nothing is lost with it.
    var folderEntries: [FolderEntry] {
        var seen: Set<String> = []
        var entries: [FolderEntry] = []
        for call in calls where call.succeeded {
            let paths = call.quotedPaths
            switch call.name {
            case "mkdir", "mkdirat":
                if let path = paths.first { entries.append(FolderEntry(kind: "mkdir", path: path, call: call)) }
            case "open", "openat", "creat":
                guard let path = paths.first, call.name == "creat" || call.text.contains("O_CREAT"),
                    path.hasPrefix(queueFolder + "/"), !path.hasSuffix("/lock"), seen.insert(path).inserted
                else { continue }
                entries.append(FolderEntry(kind: "create", path: path, call: call))
            case "rename", "renameat", "renameat2":
                if let path = paths.last, path.hasPrefix(queueFolder + "/") {
                    seen.insert(path)
                    entries.append(FolderEntry(kind: "rename", path: path, call: call))
                }
            default:
                continue
            }
        }
        return entries
    }

    /// Records an issue unless `entry`'s folder was `fsync`ed after it and before the next acknowledgement.
    func expectFolderSynced(after entry: FolderEntry) {
        guard let next = acks.first(where: { $0.call.start > entry.call.end }) else { return }
        let synced = calls.contains {
            $0.name == "fsync" && $0.descriptorPath == entry.folder && $0.succeeded && $0.start > entry.call.end
                && $0.end < next.call.start
        }
        #expect(synced, "\(entry) is not durable: \(entry.folder) was not synced before \(next.call)")
    }
}
