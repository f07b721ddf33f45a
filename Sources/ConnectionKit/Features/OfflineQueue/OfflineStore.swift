import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The files behind an ``OfflineQueue``. Every write is atomic and durable: a temporary file (mode 0600) in
/// the target's folder is written, `fsync`ed, renamed over the target, and the folder is `fsync`ed; a process
/// killed at any instant leaves either the old file or the new one, never a torn one.
///
/// Layout: `pending/<sequence>.json` (one operation each), `bodies/<sequence>.body` (large bodies),
/// `dead/<sequence>.json` (dead letters), `corrupt/` (entries that could not be read), `lock` (held with
/// `flock` while open, so two processes never share a queue).
final class OfflineStore: Sendable {
    let directory: URL
    let pendingFolder: URL
    let bodiesFolder: URL
    let deadFolder: URL
    let corruptFolder: URL
    /// The lock file's descriptor while the lock is held; -1 after `releaseLock()`.
    private let lockDescriptor: Locked<Int32>

    /// Opens (creating when needed) the queue in `directory`, taking its lock.
    init(directory: URL) throws {
        self.directory = directory
        pendingFolder = directory.appendingPathComponent("pending", isDirectory: true)
        bodiesFolder = directory.appendingPathComponent("bodies", isDirectory: true)
        deadFolder = directory.appendingPathComponent("dead", isDirectory: true)
        corruptFolder = directory.appendingPathComponent("corrupt", isDirectory: true)
        for folder in [directory, pendingFolder, bodiesFolder, deadFolder, corruptFolder] {
            try Self.makeFolder(folder)
        }
        let lockPath = directory.appendingPathComponent("lock").path
        let descriptor = open(lockPath, O_CREAT | O_RDWR | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw Self.posixError("open \(lockPath)") }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            close(descriptor)
            throw ConnectionError(
                .fileSystem(
                    underlying: OfflineStoreFailure(
                        message: "the offline queue in \(directory.path) is open in another process or queue")))
        }
        lockDescriptor = Locked(descriptor)
    }

    deinit {
        releaseLock()
    }

    /// Closes the lock file, which releases the `flock`. Idempotent.
    func releaseLock() {
        let descriptor = lockDescriptor.withLock { descriptor in
            defer { descriptor = -1 }
            return descriptor
        }
        if descriptor >= 0 { close(descriptor) }
    }

    // MARK: - Loading

    /// Reads every pending operation and dead letter, in sequence order. Leftover temporary files are
    /// deleted, orphan body files too; an entry that cannot be read is moved to `corrupt/` and logged.
    func load(log: (String) -> Void) -> (pending: [QueuedOperation], dead: [DeadLetter]) {
        removeTemporaryFiles()
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        var pending: [QueuedOperation] = []
        for file in entries(in: pendingFolder) {
            do {
                let operation = try decoder.decode(QueuedOperation.self, from: Data(contentsOf: file))
                if let bodyFileName = operation.bodyFileName,
                    !FileManager.default.fileExists(atPath: bodiesFolder.appendingPathComponent(bodyFileName).path)
                {
                    throw OfflineStoreFailure(message: "its body file \(bodyFileName) is missing")
                }
                pending.append(operation)
            } catch {
                moveAside(file, reason: error, log: log)
            }
        }
        var dead: [DeadLetter] = []
        for file in entries(in: deadFolder) {
            do {
                dead.append(try decoder.decode(DeadLetter.self, from: Data(contentsOf: file)))
            } catch {
                moveAside(file, reason: error, log: log)
            }
        }
        // A crash between writing a dead letter and removing its pending entry leaves both: finish the move.
        let deadIDs = Set(dead.map(\.operation.id))
        for operation in pending where deadIDs.contains(operation.id) {
            try? removeFile(pendingFile(operation))
        }
        pending.removeAll { deadIDs.contains($0.id) }
        removeOrphanBodies(referenced: Set((pending + dead.map(\.operation)).compactMap(\.bodyFileName)))
        return (
            pending.sorted { $0.sequence < $1.sequence }, dead.sorted { $0.operation.sequence < $1.operation.sequence }
        )
    }

    private func entries(in folder: URL) -> [URL] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { $0.hasSuffix(".json") && !$0.hasPrefix(".") }.sorted().map {
            folder.appendingPathComponent($0)
        }
    }

    private func moveAside(_ file: URL, reason: any Error, log: (String) -> Void) {
        let target = corruptFolder.appendingPathComponent("\(file.lastPathComponent).\(UUID().uuidString)")
        let moved = rename(file.path, target.path) == 0
        try? syncFolder(file.deletingLastPathComponent())
        try? syncFolder(corruptFolder)
        log(
            "corrupt queue entry \(file.lastPathComponent) "
                + (moved ? "moved aside to \(target.path)" : "could not be moved aside")
                + " (\(reason)); the rest of the queue goes on")
    }

    private func removeTemporaryFiles() {
        for folder in [pendingFolder, bodiesFolder, deadFolder] {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
            for name in names where name.hasSuffix(".tmp") {
                unlink(folder.appendingPathComponent(name).path)
            }
        }
    }

    private func removeOrphanBodies(referenced: Set<String>) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: bodiesFolder.path)) ?? []
        for name in names where !referenced.contains(name) {
            // A body written by an enqueue that never returned: nobody was told it is queued.
            unlink(bodiesFolder.appendingPathComponent(name).path)
        }
    }

    // MARK: - Writing

    /// The name of operation `sequence`'s files, sorting in sequence order.
    static func baseName(sequence: UInt64) -> String {
        let digits = String(sequence)
        return String(repeating: "0", count: max(0, 20 - digits.count)) + digits
    }

    func writeBody(_ body: Data, sequence: UInt64) throws -> String {
        let name = Self.baseName(sequence: sequence) + ".body"
        try writeAtomically(body, to: bodiesFolder.appendingPathComponent(name))
        return name
    }

    func writePending(_ operation: QueuedOperation) throws {
        try writeAtomically(encode(operation), to: pendingFile(operation))
    }

    /// Writes the dead letter, then removes the pending entry: a crash in between leaves both, and loading
    /// then finishes the move; never neither.
    func moveToDead(_ letter: DeadLetter) throws {
        try writeAtomically(encode(letter), to: deadFile(letter.operation))
        try removeFile(pendingFile(letter.operation))
    }

    /// Forgets a delivered (or removed) pending operation and its body.
    func removePending(_ operation: QueuedOperation) throws {
        try removeFile(pendingFile(operation))
        try removeBody(of: operation)
    }

    func removeDead(_ operation: QueuedOperation) throws {
        try removeFile(deadFile(operation))
        try removeBody(of: operation)
    }

    func readBody(of operation: QueuedOperation) throws -> Data? {
        if let inline = operation.inlineBody { return inline }
        guard let name = operation.bodyFileName else { return nil }
        return try Data(contentsOf: bodiesFolder.appendingPathComponent(name))
    }

    private func removeBody(of operation: QueuedOperation) throws {
        guard let name = operation.bodyFileName else { return }
        try removeFile(bodiesFolder.appendingPathComponent(name))
    }

    private func pendingFile(_ operation: QueuedOperation) -> URL {
        pendingFolder.appendingPathComponent(Self.baseName(sequence: operation.sequence) + ".json")
    }

    private func deadFile(_ operation: QueuedOperation) -> URL {
        deadFolder.appendingPathComponent(Self.baseName(sequence: operation.sequence) + ".json")
    }

    private func encode(_ value: some Encodable) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        do {
            return try encoder.encode(value)
        } catch {
            throw ConnectionError(.fileSystem(underlying: error))
        }
    }

    private func removeFile(_ file: URL) throws {
        guard unlink(file.path) == 0 || errno == ENOENT else { throw Self.posixError("unlink \(file.path)") }
        try syncFolder(file.deletingLastPathComponent())
    }

    /// Temporary file (0600, same folder) → write → fsync → rename → fsync of the folder.
    private func writeAtomically(_ data: Data, to target: URL) throws {
        let folder = target.deletingLastPathComponent()
        let temporary = folder.appendingPathComponent(".\(target.lastPathComponent).\(UUID().uuidString).tmp")
        let descriptor = open(temporary.path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw Self.posixError("create \(temporary.path)") }
        var closed = false
        defer {
            if !closed { close(descriptor) }
        }
        do {
            // The mode given to open() is narrowed by the umask only; make it exactly 0600 regardless.
            guard fchmod(descriptor, 0o600) == 0 else { throw Self.posixError("chmod \(temporary.path)") }
            try data.withUnsafeBytes { buffer in
                var offset = 0
                while offset < buffer.count {
                    let written = write(descriptor, buffer.baseAddress.map { $0 + offset }, buffer.count - offset)
                    if written < 0 {
                        if errno == EINTR { continue }
                        throw Self.posixError("write \(temporary.path)")
                    }
                    offset += written
                }
            }
            guard fsync(descriptor) == 0 else { throw Self.posixError("fsync \(temporary.path)") }
            closed = true
            guard close(descriptor) == 0 else { throw Self.posixError("close \(temporary.path)") }
            guard rename(temporary.path, target.path) == 0 else { throw Self.posixError("rename to \(target.path)") }
        } catch {
            unlink(temporary.path)
            throw error
        }
        try syncFolder(folder)
    }

    private func syncFolder(_ folder: URL) throws {
        let descriptor = open(folder.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw Self.posixError("open \(folder.path)") }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw Self.posixError("fsync \(folder.path)") }
    }

    private static func makeFolder(_ folder: URL) throws {
        if mkdir(folder.path, 0o700) != 0 && errno != EEXIST {
            throw posixError("create folder \(folder.path)")
        }
    }

    private static func posixError(_ operation: String) -> ConnectionError {
        let code = errno
        let message = String(cString: strerror(code))
        return ConnectionError(
            .fileSystem(underlying: OfflineStoreFailure(message: "\(operation) failed: \(message) (errno \(code))")))
    }
}
