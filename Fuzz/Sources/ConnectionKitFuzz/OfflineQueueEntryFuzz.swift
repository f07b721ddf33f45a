import Foundation

@testable import ConnectionKit

/// An offline queue's entry files as `OfflineStore.load` decodes them: a pending operation and a
/// dead letter (same decoder settings), then the file name a decoded sequence number gives. The
/// queue's loading is being reworked; this stays a thin call into its decoding.
enum OfflineQueueEntryFuzz {
    static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }()

    static func run(_ input: Data) {
        if let operation = try? decoder.decode(QueuedOperation.self, from: input) {
            _ = OfflineStore.baseName(sequence: operation.sequence)
        }
        if let letter = try? decoder.decode(DeadLetter.self, from: input) {
            _ = OfflineStore.baseName(sequence: letter.operation.sequence)
        }
    }
}
