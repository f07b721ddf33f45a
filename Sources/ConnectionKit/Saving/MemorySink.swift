import Foundation

/// Keeps the body in memory, failing once it exceeds `limit` bytes.
final class MemorySink: BodySink {
    private var buffer = Data()
    private let limit: Int64

    init(limit: Int64, expectedLength: Int64?) {
        self.limit = limit
        if let expectedLength, expectedLength > 0, expectedLength <= limit {
            buffer.reserveCapacity(Int(expectedLength))
        }
    }

    func append(_ data: Data) throws -> TransferDemand {
        try data.withUnsafeBytes { try append(bytes: $0) }
    }

    func append(bytes: UnsafeRawBufferPointer) throws -> TransferDemand {
        guard Int64(buffer.count) + Int64(bytes.count) <= limit else {
            throw ConnectionError(.responseTooLarge(limit: limit))
        }
        buffer.append(contentsOf: bytes)
        return .more
    }

    func finish() throws -> CompletedBody { .memory(buffer) }

    func discard() { buffer = Data() }
}
