import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The stored JSON of operations and dead letters, every number range-checked.
extension OfflineStore {
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
}
