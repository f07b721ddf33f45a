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
        for folder in folders {
            try Self.makeTrustedFolder(folder)
        }
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

    // MARK: - Trust

    private static func refusal(_ kind: OfflineQueueError.Kind) -> ConnectionError {
        ConnectionError(.fileSystem(underlying: OfflineQueueError(kind)))
    }

    /// Creates `folder` (0700) when missing, then checks it.
    private static func makeTrustedFolder(_ folder: URL) throws {
        var info = stat()
        if lstat(folder.path, &info) != 0 {
            guard errno == ENOENT else { throw posixError("inspect \(folder.path)") }
            if mkdir(folder.path, 0o700) != 0 && errno != EEXIST {
                throw posixError("create folder \(folder.path)")
            }
        }
        try checkTrusted(folder, folder: true)
    }

    /// Refuses a link, something of the wrong type, another user's, or one the group or others may write.
    static func checkTrusted(_ url: URL, folder: Bool) throws {
        var info = stat()
        guard lstat(url.path, &info) == 0 else { throw posixError("inspect \(url.path)") }
        let type = info.st_mode & S_IFMT
        if type == S_IFLNK { throw refusal(.symbolicLink(url)) }
        guard type == (folder ? S_IFDIR : S_IFREG) else { throw refusal(.notARegularFile(url)) }
        guard info.st_uid == geteuid() else { throw refusal(.ownedByAnotherUser(url, owner: Int(info.st_uid))) }
        let permissions = Int(info.st_mode & 0o7777)
        if permissions & 0o022 != 0 { throw refusal(.writableByOthers(url, mode: permissions)) }
    }

    private static func names(in folder: URL) throws -> [String] {
        do {
            return try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        } catch {
            throw ConnectionError(.fileSystem(underlying: POSIXFileError.offlineQueue(error)))
        }
    }

    /// Whether `name` may name a body file: a bare name the queue itself makes, never a path.
    static func isBodyFileName(_ name: String) -> Bool {
        guard name.hasSuffix(".body"), name.utf8.count <= 64 else { return false }
        let stem = name.dropLast(".body".count)
        return !stem.isEmpty
            && stem.unicodeScalars.allSatisfy {
                ("0"..."9").contains($0) || ("A"..."F").contains($0) || ("a"..."f").contains($0) || $0 == "-"
            }
    }

    /// Reads a regular file without following a link.
    static func readRegularFile(_ url: URL) throws -> Data {
        let descriptor = open(url.path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard descriptor >= 0 else {
            if errno == ELOOP { throw refusal(.symbolicLink(url)) }
            throw posixError("open \(url.path)")
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw posixError("stat \(url.path)") }
        guard info.st_mode & S_IFMT == S_IFREG else { throw refusal(.notARegularFile(url)) }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw posixError("read \(url.path)")
            }
            if count == 0 { return data }
            data.append(contentsOf: buffer[0..<count])
        }
    }

    // MARK: - Decoding (every number range-checked)

    /// Decodes and checks an operation stored as JSON; `sequence`, when given, is the journal record's and
    /// replaces the JSON's. Throws for anything out of range: a sequence of 0 or from ``sequenceLimit`` on,
    /// negative or huge attempt counts or body lengths, a body length that does not match, a body file name
    /// that is not a bare name.
    static func decodeEntry(_ data: Data, sequence: UInt64? = nil) throws -> QueuedOperation {
        var operation = try decoder.decode(QueuedOperation.self, from: data)
        if let sequence { operation.sequence = sequence }
        try check(operation)
        return operation
    }

    /// Decodes and checks a dead letter stored as JSON.
    static func decodeDeadLetter(_ data: Data) throws -> DeadLetter {
        let letter = try decoder.decode(DeadLetter.self, from: data)
        try check(letter.operation)
        if let status = letter.statusCode, !(100...999).contains(status) {
            throw POSIXFileError(message: "status \(status) is out of range", isOfflineQueue: true)
        }
        return letter
    }

    private static func check(_ operation: QueuedOperation) throws {
        func fail(_ message: String) -> POSIXFileError { POSIXFileError(message: message, isOfflineQueue: true) }
        guard operation.sequence > 0, operation.sequence < sequenceLimit else {
            throw fail("sequence \(operation.sequence) is out of range")
        }
        guard (0...attemptsLimit).contains(operation.attempts) else {
            throw fail("attempt count \(operation.attempts) is out of range")
        }
        guard operation.bodyLength >= 0, operation.bodyLength <= JournalRecord.maximumPayloadSize * 8 else {
            throw fail("body length \(operation.bodyLength) is out of range")
        }
        guard !operation.typeName.isEmpty, !operation.method.isEmpty else { throw fail("it names no class or method") }
        if let inline = operation.inlineBody {
            guard operation.bodyFileName == nil, inline.count == operation.bodyLength else {
                throw fail("its body length \(operation.bodyLength) does not match its body")
            }
        } else if let name = operation.bodyFileName {
            guard isBodyFileName(name) else { throw fail("its body file name is not a bare name in bodies/") }
        } else if operation.bodyLength != 0 {
            throw fail("it has a body length \(operation.bodyLength) but no body")
        }
    }

    private static var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }

    static func encode(_ value: some Encodable) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        do {
            return try encoder.encode(value)
        } catch {
            throw ConnectionError(.fileSystem(underlying: POSIXFileError.offlineQueue(error)))
        }
    }

    // MARK: - Loading

    /// What an earlier process left: the pending operations and dead letters in sequence order, and the
    /// journal, open for appending.
    struct Loaded {
        var pending: [QueuedOperation]
        var dead: [DeadLetter]
        var journal: OfflineJournal
    }

    /// Reads the journal (and version 1 `pending/` files), the dead letters and the body files. Leftover
    /// temporary files and orphan body files are deleted; what cannot be read is moved to `corrupt/` and
    /// logged; a record cut short by a crash is dropped. When the journal holds anything but live entries
    /// worth keeping, it is rewritten into a fresh segment (and version 1 files are removed).
    func load(log: (String) -> Void, segmentLimit: Int = 4 * 1024 * 1024) throws -> Loaded {
        removeTemporaryFiles()
        var scan = LoadScan()
        for name in try Self.names(in: journalFolder) {
            try readSegment(named: name, into: &scan, log: log)
        }
        readVersion1Files(into: &scan, log: log)
        readDeadLetters(into: &scan, log: log)
        dropUnsendableEntries(from: &scan, log: log)
        let pending = scan.entries.values.sorted { $0.sequence < $1.sequence }
        removeOrphanBodies(referenced: Set((pending + scan.dead.map(\.operation)).compactMap(\.bodyFileName)))
        let journal = try openJournal(for: pending, scan: scan, segmentLimit: segmentLimit)
        return Loaded(pending: pending, dead: scan.dead, journal: journal)
    }

    /// What ``load(log:)`` has read so far.
    private struct LoadScan {
        var entries: [UInt64: QueuedOperation] = [:]
        /// The segment each live entry was read from.
        var entrySegment: [UInt64: UInt64] = [:]
        var highest: UInt64 = 0
        /// Whether the journal must be rewritten: damaged, migrated or trimmed.
        var rewrite = false
        var resolved = Set<UInt64>()
        var segments: [(number: UInt64, url: URL, size: Int)] = []
        /// Version 1 files read into `entries`, removed once the rewritten journal is durable.
        var legacyFiles: [URL] = []
        var dead: [DeadLetter] = []
    }

    /// Reads journal segment `name` (other names are skipped), setting its damaged records aside.
    private func readSegment(named name: String, into scan: inout LoadScan, log: (String) -> Void) throws {
        guard name.hasSuffix(".log"), name.count == 24, let number = UInt64(name.prefix(20)),
            number > 0, number < Self.sequenceLimit
        else { return }
        let url = journalFolder.appendingPathComponent(name)
        let data = try Self.readRegularFile(url)
        scan.segments.append((number, url, data.count))
        let records = JournalRecord.scan(data)
        for range in records.damaged {
            scan.rewrite = true
            let aside = setAside(data.subdata(in: range), named: "\(name).\(range.lowerBound)")
            log(Self.setAsideMessage("in \(name) at byte \(range.lowerBound)", aside: aside, reason: "damaged bytes"))
        }
        if let tail = records.tail {
            scan.rewrite = true
            log("dropped \(tail.count) bytes at the end of \(name): a write cut short by a crash, never acknowledged")
        }
        for (record, range) in records.records {
            apply(record, in: name, at: range.lowerBound, of: number, to: &scan, log: log)
        }
    }

    /// Applies the journal record at byte `offset` of segment `segment` (file `name`).
    private func apply(
        _ record: JournalRecord, in name: String, at offset: Int, of segment: UInt64, to scan: inout LoadScan,
        log: (String) -> Void
    ) {
        switch record {
        case .entry(let sequence, let json):
            do {
                scan.entries[sequence] = try Self.decodeEntry(json, sequence: sequence)
                scan.entrySegment[sequence] = segment
                scan.highest = max(scan.highest, sequence)
            } catch {
                scan.rewrite = true
                let aside = setAside(json, named: "\(name).\(offset).json")
                log(Self.setAsideMessage("in \(name) at byte \(offset)", aside: aside, reason: "\(error)"))
            }
        case .attempts(let sequence, let attempts):
            if var operation = scan.entries[sequence], attempts <= Self.attemptsLimit {
                operation.attempts = max(operation.attempts, attempts)
                scan.entries[sequence] = operation
            }
        case .resolved(let sequences):
            for sequence in sequences {
                scan.resolved.insert(sequence)
                scan.entries[sequence] = nil
                scan.entrySegment[sequence] = nil
                if sequence < Self.sequenceLimit { scan.highest = max(scan.highest, sequence) }
            }
        }
    }
    /// Version 1's one file per operation: read into the journal's entries (which win), or set aside.
    private func readVersion1Files(into scan: inout LoadScan, log: (String) -> Void) {
        for file in entryFiles(in: pendingFolder) {
            scan.rewrite = true
            do {
                let operation = try Self.decodeEntry(Self.readRegularFile(file))
                scan.legacyFiles.append(file)
                scan.highest = max(scan.highest, operation.sequence)
                if scan.entries[operation.sequence] == nil, !scan.resolved.contains(operation.sequence) {
                    scan.entries[operation.sequence] = operation
                }
            } catch {
                moveAside(file, reason: error, log: log)
            }
        }
    }

    /// Reads the dead letters, setting aside those that cannot be read.
    private func readDeadLetters(into scan: inout LoadScan, log: (String) -> Void) {
        for file in entryFiles(in: deadFolder) {
            do {
                let letter = try Self.decodeDeadLetter(Self.readRegularFile(file))
                scan.highest = max(scan.highest, letter.operation.sequence)
                scan.dead.append(letter)
            } catch {
                moveAside(file, reason: error, log: log)
            }
        }
    }

    /// Drops the entries that are already dead letters (a crash between writing the letter and resolving the
    /// entry leaves both: this finishes the move) and sets aside those whose body file is missing.
    private func dropUnsendableEntries(from scan: inout LoadScan, log: (String) -> Void) {
        let deadIDs = Set(scan.dead.map(\.operation.id))
        for (sequence, operation) in scan.entries where deadIDs.contains(operation.id) {
            scan.entries[sequence] = nil
            scan.rewrite = true
        }
        for (sequence, operation) in scan.entries {
            guard let name = operation.bodyFileName else { continue }
            let file = bodiesFolder.appendingPathComponent(name)
            var info = stat()
            guard lstat(file.path, &info) != 0 || info.st_mode & S_IFMT != S_IFREG else { continue }
            scan.entries[sequence] = nil
            scan.rewrite = true
            let baseName = Self.baseName(sequence: sequence)
            let aside = (try? Self.encode(operation)).flatMap { setAside($0, named: "\(baseName).json") }
            log(Self.setAsideMessage(baseName, aside: aside, reason: "its body file \(name) is missing"))
        }
    }

    /// The journal, open for appending: the one segment as it is, or a fresh segment holding only `pending`
    /// when it was damaged, migrated, split into several segments, or mostly resolved records.
    private func openJournal(for pending: [QueuedOperation], scan: LoadScan, segmentLimit: Int) throws -> OfflineJournal
    {
        let liveBytes = pending.reduce(0) { $0 + $1.bodyLength }
        let segmentBytes = scan.segments.reduce(0) { $0 + $1.size }
        let mostlyResolved = segmentBytes > 1024 * 1024 && segmentBytes > 4 * (liveBytes + 512 * pending.count)
        let segment: UInt64
        var entrySegment = scan.entrySegment
        if !scan.rewrite, !mostlyResolved, scan.segments.count == 1 {
            segment = scan.segments[0].number
        } else {
            segment = (scan.segments.last?.number ?? 0) + 1
            try writeSegment(segment, with: pending)
            for old in scan.segments { files.unlink(old.url.path) }
            for file in scan.legacyFiles { files.unlink(file.path) }
            try Self.syncFolder(journalFolder, files: files)
            if !scan.legacyFiles.isEmpty { try Self.syncFolder(pendingFolder, files: files) }
            entrySegment = [:]  // every live entry is in the fresh segment now
        }
        var live: [UInt64: (segment: UInt64, bytes: Int)] = [:]
        for operation in pending {
            live[operation.sequence] = (entrySegment[operation.sequence] ?? segment, operation.bodyLength)
        }
        return try OfflineJournal(
            folder: journalFolder, bodiesFolder: bodiesFolder, segment: segment, live: live,
            nextSequence: scan.highest + 1, segmentLimit: segmentLimit, files: files)
    }

    /// The log line for a queue entry that could not be read: `what` names it, `aside` is where it was
    /// kept (`nil`: it could not be), `reason` says what was wrong.
    private static func setAsideMessage(_ what: String, aside: URL?, reason: String) -> String {
        "corrupt queue entry \(what) "
            + (aside.map { "moved aside to \($0.path)" } ?? "could not be moved aside")
            + " (\(reason)); the rest of the queue goes on"
    }

    /// Writes `operations` as the first records of a new segment and makes it durable.
    private func writeSegment(_ segment: UInt64, with operations: [QueuedOperation]) throws {
        var bytes = Data()
        for operation in operations {
            bytes.append(JournalRecord.entry(sequence: operation.sequence, json: try Self.encode(operation)).framed)
        }
        let temporary = journalFolder.appendingPathComponent(".\(UUID().uuidString).tmp")
        try writeAtomically(bytes, to: OfflineJournal.segmentURL(segment, in: journalFolder), temporary: temporary)
    }

    private func entryFiles(in folder: URL) -> [URL] {
        let names = (try? Self.names(in: folder)) ?? []
        return names.filter { $0.hasSuffix(".json") && !$0.hasPrefix(".") }.map { folder.appendingPathComponent($0) }
    }

    /// Writes `data` to a new file in `corrupt/`; returns it, or `nil` when that failed.
    private func setAside(_ data: Data, named name: String) -> URL? {
        let target = corruptFolder.appendingPathComponent("\(name).\(UUID().uuidString)")
        let temporary = corruptFolder.appendingPathComponent(".\(UUID().uuidString).tmp")
        return (try? writeAtomically(data, to: target, temporary: temporary)) == nil ? nil : target
    }

    private func moveAside(_ file: URL, reason: any Error, log: (String) -> Void) {
        let target = corruptFolder.appendingPathComponent("\(file.lastPathComponent).\(UUID().uuidString)")
        let moved = files.rename(file.path, to: target.path)
        try? Self.syncFolder(file.deletingLastPathComponent(), files: files)
        try? Self.syncFolder(corruptFolder, files: files)
        log(Self.setAsideMessage(file.lastPathComponent, aside: moved ? target : nil, reason: "\(reason)"))
    }

    private func removeTemporaryFiles() {
        for folder in [pendingFolder, bodiesFolder, deadFolder, journalFolder, corruptFolder] {
            for name in (try? Self.names(in: folder)) ?? [] where name.hasPrefix(".") && name.hasSuffix(".tmp") {
                files.unlink(folder.appendingPathComponent(name).path)
            }
        }
    }

    private func removeOrphanBodies(referenced: Set<String>) {
        for name in (try? Self.names(in: bodiesFolder)) ?? [] where !referenced.contains(name) {
            // A body written by an enqueue that never returned: nobody was told it is queued.
            files.unlink(bodiesFolder.appendingPathComponent(name).path)
        }
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
    private func writeAtomically(_ data: Data, to target: URL, temporary: URL, syncFolder: Bool = true) throws {
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

    /// The failure `errno` describes now, of what `action` names, as the queue's error.
    static func posixError(_ action: String) -> ConnectionError {
        ConnectionError(.fileSystem(underlying: POSIXFileError.current(action).inOfflineQueue))
    }
}
