import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The files behind an ``OfflineQueue``.
///
/// Layout: `journal/<number>.log` (the pending operations, see ``OfflineJournal``), `bodies/<id>.body` (large
/// bodies), `dead/<sequence>.json` (dead letters), `corrupt/` (what could not be read), `lock` (held with
/// `flock` while open, so two processes never share a queue), and `pending/<sequence>.json`, where version 1
/// of the queue kept one operation per file: read and moved into the journal when found.
///
/// The folder is a trust boundary: it is opened only when it, every folder in it and every file in those is
/// owned by this user, is not writable by the group or others, and is not a symbolic link
/// (``OfflineQueueError``). Files are opened without following links; a body file is named by a bare name
/// inside `bodies/`; every number read is range-checked; nothing outside the folder is deleted.
final class OfflineStore: Sendable {
    let directory: URL
    /// Every change to the files goes through here (a test records them to simulate power loss).
    let files: any OfflineFileOperations
    /// The folders inside `directory` (see the layout above).
    let pendingFolder, bodiesFolder, deadFolder, corruptFolder, journalFolder: URL
    /// The lock file's descriptor while the lock is held; -1 after `releaseLock()`.
    private let lockDescriptor: Locked<Int32>

    /// Sequence numbers read from disk must be below this (and above 0); the queue never reaches it.
    static let sequenceLimit = UInt64(Int64.max)
    /// Attempt counts read from disk must be at most this.
    static let attemptsLimit = Int(Int32.max)

    /// Opens (creating when needed) the queue in `directory`, checks that the folder can be trusted, and takes
    /// its lock.
    init(directory: URL, files: any OfflineFileOperations = POSIXOfflineFileOperations()) throws {
        self.directory = directory
        self.files = files
        let folder = { directory.appendingPathComponent($0, isDirectory: true) }
        (pendingFolder, bodiesFolder, deadFolder) = (folder("pending"), folder("bodies"), folder("dead"))
        (corruptFolder, journalFolder) = (folder("corrupt"), folder("journal"))
        let folders = [directory, pendingFolder, bodiesFolder, deadFolder, corruptFolder, journalFolder]
        var created: [URL] = []
        for folder in folders {
            if try Self.makeTrustedFolder(folder) { created.append(folder) }
        }
        try Self.syncCreations(of: created, in: directory, files: files)
        let lockPath = directory.appendingPathComponent("lock").path
        let descriptor = open(lockPath, O_CREAT | O_RDWR | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else {
            if errno == ELOOP { throw Self.refusal(.symbolicLink(directory.appendingPathComponent("lock"))) }
            throw Self.posixError("open \(lockPath)")
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            close(descriptor)
            throw ConnectionError(
                .fileSystem(
                    underlying: POSIXFileError(
                        message: "the offline queue in \(directory.path) is open in another process or queue",
                        isOfflineQueue: true)))
        }
        lockDescriptor = Locked(descriptor)
        do {
            try Self.checkTrusted(directory.appendingPathComponent("lock"), folder: false)
            for folder in folders.dropFirst() {
                for name in try Self.names(in: folder) {
                    try Self.checkTrusted(folder.appendingPathComponent(name), folder: false)
                }
            }
        } catch {
            releaseLock()
            throw error
        }
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

    // MARK: - Bodies and dead letters

    /// The name of operation `sequence`'s files, sorting in sequence order.
    static func baseName(sequence: UInt64) -> String {
        let digits = String(sequence)
        return String(repeating: "0", count: max(0, 20 - digits.count)) + digits
    }

    /// Writes a large body to `bodies/<id>.body`, durably (the folder is synced with the entry's commit).
    func writeBody(_ body: Data, id: UUID) throws -> String {
        let name = id.uuidString + ".body"
        let temporary = bodiesFolder.appendingPathComponent(".\(name).\(UUID().uuidString).tmp")
        try writeAtomically(
            body, to: bodiesFolder.appendingPathComponent(name), temporary: temporary, syncFolder: false)
        return name
    }

    func removeBody(named name: String?) {
        guard let name, Self.isBodyFileName(name) else { return }
        files.unlink(bodiesFolder.appendingPathComponent(name).path)
    }

    func readBody(of operation: QueuedOperation) throws -> Data? {
        if let inline = operation.inlineBody { return inline }
        guard let name = operation.bodyFileName else { return nil }
        guard Self.isBodyFileName(name) else {
            throw POSIXFileError(
                message: "the body file name of \(operation.id) is not a bare name", isOfflineQueue: true)
        }
        return try Self.readRegularFile(bodiesFolder.appendingPathComponent(name))
    }

    /// Writes the dead letter (durably). The caller then resolves its journal entry: a crash in between
    /// leaves both, and loading finishes the move; never neither.
    func writeDead(_ letter: DeadLetter) throws {
        let target = deadFile(letter.operation)
        let temporary = deadFolder.appendingPathComponent(".\(target.lastPathComponent).\(UUID().uuidString).tmp")
        try writeAtomically(Self.encode(letter), to: target, temporary: temporary)
    }

    func removeDead(_ operation: QueuedOperation) throws {
        let file = deadFile(operation)
        guard files.unlink(file.path) || errno == ENOENT else { throw Self.posixError("unlink \(file.path)") }
        try Self.syncFolder(deadFolder, files: files)
        removeBody(named: operation.bodyFileName)
    }

    private func deadFile(_ operation: QueuedOperation) -> URL {
        deadFolder.appendingPathComponent(Self.baseName(sequence: operation.sequence) + ".json")
    }

    // MARK: - Writing

    /// ``POSIXFile/replace(_:with:temporary:syncFolder:)``, failing with the queue's error.
    func writeAtomically(_ data: Data, to target: URL, temporary: URL, syncFolder: Bool = true) throws {
        do {
            try files.replace(target, with: data, temporary: temporary, syncFolder: syncFolder)
        } catch {
            throw ConnectionError(.fileSystem(underlying: POSIXFileError.offlineQueue(error)))
        }
    }

    /// ``POSIXFile/syncFolder(_:)``, failing with the queue's error.
    static func syncFolder(_ folder: URL, files: any OfflineFileOperations) throws {
        do {
            try files.syncFolder(folder)
        } catch {
            throw ConnectionError(.fileSystem(underlying: POSIXFileError.offlineQueue(error)))
        }
    }

    /// Makes the entries of the folders `init` created durable: without it a power cut can take a subfolder
    /// (or the whole queue folder) away under files that were synced into it. The folder above `directory` is
    /// the user's: when it cannot be opened for reading, its entry is left to the file system.
    private static func syncCreations(of created: [URL], in directory: URL, files: any OfflineFileOperations) throws {
        guard let first = created.first else { return }
        if created.count > 1 || first != directory { try syncFolder(directory, files: files) }
        if first == directory { try? files.syncFolder(directory.deletingLastPathComponent()) }
    }

    /// The failure `errno` describes now, of what `action` names, as the queue's error.
    static func posixError(_ action: String) -> ConnectionError {
        ConnectionError(.fileSystem(underlying: POSIXFileError.current(action).inOfflineQueue))
    }
}
