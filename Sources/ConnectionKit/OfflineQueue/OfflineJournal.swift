import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The append-only journal of an ``OfflineQueue``: `journal/<number>.log` segments of ``JournalRecord``s.
///
/// **Group commit.** ``commit(_:)`` appends an enqueue's entry to the open batch. The first caller that
/// finds no sync under way becomes the leader: it takes the whole batch, writes it with one `pwrite`, makes
/// it durable with one `fdatasync` and wakes every caller of the batch. Callers that arrive meanwhile form
/// the next batch, whose first member leads it once the sync ends: under load, one sync acknowledges many
/// writes, and an acknowledgement still means the entry is on the disk.
///
/// **Marks.** Attempt counts and resolved (delivered, dead-lettered, removed) marks are written at once
/// (so they survive the process being killed) but not synced on their own: the next group commit, a
/// rotation or ``close()`` makes them durable. A mark lost to a power cut only causes a re-send, with the
/// same `Idempotency-Key`.
///
/// **Segments.** Records go to the newest segment. Past ``segmentLimit`` bytes, the next commit starts a new
/// segment; a segment whose entries are all resolved is deleted.
final class OfflineJournal: @unchecked Sendable {
    // Safe: every mutable member is in `state`, only touched while `condition` is locked (here and in
    // OfflineJournal+Marks.swift).

    /// An enqueue's entry waiting to join a batch.
    struct Staged {
        var operation: QueuedOperation
        /// The operation as JSON (its `sequence` is carried by the record instead).
        var json: Data
    }

    struct Batch {
        var identifier: UInt64
        var operations: [QueuedOperation] = []
        var bytes = Data()
        var syncsBodies = false
    }

    struct State {
        var descriptor: Int32
        var segment: UInt64
        var size: Int
        /// Unresolved entries per segment.
        var liveBySegment: [UInt64: Int] = [:]
        /// Each unresolved entry's segment and body length.
        var live: [UInt64: (segment: UInt64, bytes: Int)] = [:]
        var liveBytes = 0
        var nextSequence: UInt64
        var open: Batch
        var committed: UInt64 = 0
        var isSyncing = false
        /// The entries of the batch being synced: (count, body bytes), counted against the limits too.
        var syncing = (count: 0, bytes: 0)
        /// A failed batch's error, and how many of its callers have not read it yet.
        var failures: [UInt64: (error: ConnectionError, unread: Int)] = [:]
        var isClosed = false
        /// Bytes of a failed batch that could not be blanked out yet (a full disk): blanked before anything
        /// else is appended, so that the failed entries are never loaded, and the journal recovers as soon as
        /// the disk has room again.
        var unblanked: (offset: Int, count: Int)?
        /// Batches written and synced so far, for tests and figures.
        var syncedBatches = 0
    }

    let folder: URL
    let bodiesFolder: URL
    /// Every change to the files goes through here (a test records them to simulate power loss).
    let files: any OfflineFileOperations
    /// A segment past this size is followed by a new one at the next commit.
    let segmentLimit: Int
    let condition = NSCondition()
    var state: State

    /// Opens the journal in `folder` for appending to segment `segment` (created when `size` is 0) whose
    /// live entries, and those of older segments, are `live`.
    init(
        folder: URL, bodiesFolder: URL, segment: UInt64, live: [UInt64: (segment: UInt64, bytes: Int)],
        nextSequence: UInt64, segmentLimit: Int = 4 * 1024 * 1024, files: any OfflineFileOperations
    ) throws {
        self.folder = folder
        self.bodiesFolder = bodiesFolder
        self.segmentLimit = segmentLimit
        self.files = files
        let (descriptor, size) = try Self.openSegment(segment, in: folder, files: files)
        state = State(
            descriptor: descriptor, segment: segment, size: size, nextSequence: nextSequence, open: Batch(identifier: 1)
        )
        for (sequence, entry) in live {
            state.live[sequence] = entry
            state.liveBySegment[entry.segment, default: 0] += 1
            state.liveBytes += entry.bytes
        }
    }

    deinit {
        if state.descriptor >= 0 { files.close(state.descriptor) }
    }

    // MARK: - Group commit

    /// Assigns the next sequence numbers to `staged`, in order, and returns once they are durably in the
    /// journal, with their sequence numbers set. `admit` runs under the journal's lock with the number and
    /// bytes of live entries (committed or waiting) and may throw to refuse the enqueue (back-pressure).
    func commit(
        _ staged: Staged, hasBodyFile: Bool, admit: (_ liveCount: Int, _ liveBytes: Int) throws -> Void,
        committed: ([QueuedOperation]) -> Void
    ) throws -> QueuedOperation {
        condition.lock()
        defer { condition.unlock() }
        if state.isClosed { throw Self.closedError }
        try blankFailedBatch()
        try admit(
            state.live.count + state.syncing.count + state.open.operations.count,
            state.liveBytes + state.syncing.bytes + state.open.operations.reduce(0) { $0 + $1.bodyLength })
        guard state.nextSequence < OfflineStore.sequenceLimit else {
            throw ConnectionError(
                .fileSystem(
                    underlying: POSIXFileError(
                        message: "the queue's sequence numbers are used up", isOfflineQueue: true)))
        }
        var operation = staged.operation
        operation.sequence = state.nextSequence
        state.nextSequence += 1
        state.open.operations.append(operation)
        state.open.bytes.append(JournalRecord.entry(sequence: operation.sequence, json: staged.json).framed)
        state.open.syncsBodies = state.open.syncsBodies || hasBodyFile
        let mine = state.open.identifier
        while state.committed < mine {
            if state.isSyncing {
                condition.wait()
                continue
            }
            lead(committed: committed)
        }
        if let failure = state.failures[mine] {
            state.failures[mine] = failure.unread > 1 ? (failure.error, failure.unread - 1) : nil
            throw failure.error
        }
        return operation
    }

    /// Writes and syncs the open batch; called with the lock held, returns with it held.
    private func lead(committed: ([QueuedOperation]) -> Void) {
        var batch = state.open
        state.open = Batch(identifier: batch.identifier + 1)
        state.isSyncing = true
        state.syncing = (batch.operations.count, batch.operations.reduce(0) { $0 + $1.bodyLength })
        let isClosed = state.isClosed
        let rotate = !isClosed && state.size >= segmentLimit
        let descriptor = state.descriptor
        let offset = state.size
        if !rotate, !isClosed { state.size += batch.bytes.count }
        condition.unlock()

        var failure: ConnectionError?
        if isClosed {
            failure = Self.closedError
        } else {
            do {
                if rotate {
                    try self.rotate(writing: batch.bytes)
                } else {
                    try write(batch.bytes, to: descriptor, at: offset)
                    if batch.syncsBodies { try OfflineStore.syncFolder(bodiesFolder, files: files) }
                    try sync(descriptor)
                }
            } catch {
                failure =
                    error as? ConnectionError
                    ?? ConnectionError(.fileSystem(underlying: POSIXFileError.offlineQueue(error)))
            }
        }

        condition.lock()
        if let failure {
            // Blank out what may have reached the file, so that the failed entries are never loaded. (A failed
            // rotation removed its new segment itself.)
            if !rotate, !isClosed {
                state.unblanked = (offset, batch.bytes.count)
                try? blankFailedBatch()
            }
            state.failures[batch.identifier] = (failure, batch.operations.count)
        } else {
            for operation in batch.operations {
                state.live[operation.sequence] = (state.segment, operation.bodyLength)
                state.liveBySegment[state.segment, default: 0] += 1
                state.liveBytes += operation.bodyLength
            }
            state.syncedBatches += 1
            committed(batch.operations)
        }
        batch.bytes = Data()
        state.committed = batch.identifier
        state.isSyncing = false
        state.syncing = (0, 0)
        condition.broadcast()
    }

    /// Starts the next segment with `bytes` as its first records: created, written, synced, and the folder
    /// synced, before the old segment is let go. Runs outside the lock, as the leader.
    private func rotate(writing bytes: Data) throws {
        // Only the leader changes the segment, and this is the leader.
        condition.lock()
        let segment = state.segment + 1
        condition.unlock()
        let (descriptor, size) = try Self.openSegment(segment, in: folder, files: files)
        do {
            try write(bytes, to: descriptor, at: size)
            try OfflineStore.syncFolder(bodiesFolder, files: files)
            try sync(descriptor)
            try OfflineStore.syncFolder(folder, files: files)
        } catch {
            files.close(descriptor)
            files.unlink(Self.segmentURL(segment, in: folder).path)
            throw error
        }
        condition.lock()
        let old = (state.descriptor, state.segment)
        state.descriptor = descriptor
        state.segment = segment
        state.size = size + bytes.count
        let emptied = state.liveBySegment[old.1, default: 0] == 0
        condition.unlock()
        // Marks written to the old segment after its last sync become durable with it.
        _ = files.syncData(old.0)
        files.close(old.0)
        if emptied { files.unlink(Self.segmentURL(old.1, in: folder).path) }
    }

    /// Blanks out the bytes of a failed batch, if any are left (called with the lock held); throws while the
    /// disk has no room for them, so that nothing is appended after bytes that could be loaded.
    func blankFailedBatch() throws {
        guard let range = state.unblanked else { return }
        try write(Data(count: range.count), to: state.descriptor, at: range.offset)
        state.unblanked = nil
    }

    // MARK: - Files

    static let closedError = ConnectionError(
        .fileSystem(underlying: POSIXFileError(message: "the offline queue is closed", isOfflineQueue: true)))

    static func segmentURL(_ segment: UInt64, in folder: URL) -> URL {
        folder.appendingPathComponent(OfflineStore.baseName(sequence: segment) + ".log")
    }

    /// Opens (creating, 0600, without following a link) segment `segment`; returns it and its size.
    static func openSegment(_ segment: UInt64, in folder: URL, files: any OfflineFileOperations) throws -> (Int32, Int)
    {
        let path = segmentURL(segment, in: folder).path
        let descriptor = files.openForAppending(path)
        guard descriptor >= 0 else { throw OfflineStore.posixError("open \(path)") }
        var info = stat()
        guard fstat(descriptor, &info) == 0, fchmod(descriptor, 0o600) == 0 else {
            let error = OfflineStore.posixError("stat \(path)")
            files.close(descriptor)
            throw error
        }
        return (descriptor, Int(info.st_size))
    }

    func write(_ data: Data, to descriptor: Int32, at offset: Int) throws {
        guard files.write(data, to: descriptor, at: offset) else {
            throw OfflineStore.posixError("write to the journal")
        }
    }

    /// The durable sync of a file's data: `fdatasync` where there is one, `fsync` elsewhere.
    func sync(_ descriptor: Int32) throws {
        guard files.syncData(descriptor) else { throw OfflineStore.posixError("sync the journal") }
    }
}
