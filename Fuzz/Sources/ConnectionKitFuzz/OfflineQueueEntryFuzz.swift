import Foundation

@testable import ConnectionKit

/// An offline queue's files as `OfflineStore` reads them on open: the bytes as a journal segment
/// (`JournalRecord.scan`), each entry record's JSON as a pending operation (`OfflineStore.decodeEntry`),
/// and the bytes as a pending operation and as a dead letter. What must hold: no trap on any input; the
/// scan's records, damaged ranges and torn tail stay inside the input and do not overlap; a record that
/// scans re-frames to exactly the bytes it was read from.
enum OfflineQueueEntryFuzz {
    static func run(_ input: Data) {
        let scan = JournalRecord.scan(input)
        var covered = 0..<0
        for (record, range) in scan.records {
            guard range.lowerBound >= covered.upperBound, range.upperBound <= input.count else {
                fatalError("a journal record's range overlaps another or leaves the input")
            }
            covered = range
            guard record.framed == input[input.startIndex + range.lowerBound..<input.startIndex + range.upperBound]
            else {
                fatalError("a scanned journal record does not re-frame to the bytes it was read from")
            }
            if case .entry(let sequence, let json) = record {
                _ = try? OfflineStore.decodeEntry(json, sequence: sequence)
            }
        }
        for range in scan.damaged + (scan.tail.map { [$0] } ?? []) where range.upperBound > input.count {
            fatalError("a damaged range or the torn tail leaves the input")
        }
        if let operation = try? OfflineStore.decodeEntry(input) {
            _ = OfflineStore.baseName(sequence: operation.sequence)
        }
        if let letter = try? OfflineStore.decodeDeadLetter(input) {
            _ = OfflineStore.baseName(sequence: letter.operation.sequence)
        }
    }
}
