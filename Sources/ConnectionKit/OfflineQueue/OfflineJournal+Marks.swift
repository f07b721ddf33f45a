import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Attempt counts and resolved marks: written at once, synced with the next commit (see ``OfflineJournal``).
extension OfflineJournal {
    // MARK: - Marks

    /// Records that `sequence` is about to be attempted for the `attempts`th time. Not synced.
    func recordAttempt(_ sequence: UInt64, attempts: Int) throws {
        try appendMark(.attempts(sequence: sequence, attempts: attempts), resolving: [], sync: false)
    }

    /// Records that `sequences` are resolved (delivered, dead-lettered or removed) and forgets them; deletes
    /// a segment left with no live entry. With `sync`, durable when this returns; otherwise at the next
    /// commit.
    func resolve(_ sequences: [UInt64], sync: Bool) throws {
        try appendMark(.resolved(sequences), resolving: sequences, sync: sync)
    }

    private func appendMark(_ record: JournalRecord, resolving: [UInt64], sync: Bool) throws {
        let bytes = record.framed
        condition.lock()
        defer { condition.unlock() }
        if state.isClosed { throw Self.closedError }
        try blankFailedBatch()
        let offset = state.size
        state.size += bytes.count
        do {
            try write(bytes, to: state.descriptor, at: offset)
        } catch {
            _ = try? write(Data(count: bytes.count), to: state.descriptor, at: offset)
            throw error
        }
        var emptied: [UInt64] = []
        for sequence in resolving {
            guard let entry = state.live.removeValue(forKey: sequence) else { continue }
            state.liveBytes -= entry.bytes
            state.liveBySegment[entry.segment, default: 1] -= 1
            if state.liveBySegment[entry.segment] == 0, entry.segment != state.segment {
                state.liveBySegment[entry.segment] = nil
                emptied.append(entry.segment)
            }
        }
        if sync { try self.sync(state.descriptor) }
        for segment in emptied {
            // The resolved marks are written: losing them to a power cut re-sends, never loses.
            files.unlink(Self.segmentURL(segment, in: folder).path)
        }
    }

    /// How many group commits were synced since the journal was opened (each acknowledging one or more
    /// enqueues).
    var syncedBatches: Int {
        condition.lock()
        defer { condition.unlock() }
        return state.syncedBatches
    }

    /// Makes every mark durable and stops appending; ``commit(_:hasBodyFile:admit:committed:)`` throws from
    /// now on. Waits for a commit under way. Idempotent.
    func close() {
        condition.lock()
        state.isClosed = true
        while state.isSyncing { condition.wait() }
        if state.descriptor >= 0 {
            _ = files.syncData(state.descriptor)
            files.close(state.descriptor)
            state.descriptor = -1
        }
        condition.unlock()
    }
}
