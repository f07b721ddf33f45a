import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Opening a folder an earlier process left: reading, repairing and setting aside.
extension OfflineStore {
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
}
