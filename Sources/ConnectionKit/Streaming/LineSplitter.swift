import Foundation

/// Splits bytes into lines ended by LF or CRLF, keeping an unfinished line between chunks.
struct LineSplitter {
    let maximumLineSize: Int
    private var pending: [UInt8] = []
    /// Lines completed so far (the number of the next line is this plus one).
    private(set) var lineCount = 0

    init(maximumLineSize: Int) {
        self.maximumLineSize = max(1, maximumLineSize)
    }

    /// Calls `line` with each complete line of `chunk` (without its line end) and its 1-based number.
    mutating func split(_ chunk: Data, line: (UnsafeBufferPointer<UInt8>, Int) throws -> Void) throws {
        try chunk.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            var start = 0
            while let newline = bytes[start...].firstIndex(of: 10) {
                try emit(UnsafeBufferPointer(rebasing: bytes[start..<newline]), line: line)
                start = newline + 1
            }
            guard start < bytes.count else { return }
            guard pending.count + bytes.count - start <= maximumLineSize else {
                throw ConnectionError(.responseTooLarge(limit: Int64(maximumLineSize)))
            }
            pending.append(contentsOf: bytes[start...])
        }
    }

    /// The body ended: calls `line` with an unterminated last line, if any.
    mutating func finish(line: (UnsafeBufferPointer<UInt8>, Int) throws -> Void) throws {
        guard !pending.isEmpty else { return }
        try emit(UnsafeBufferPointer(start: nil, count: 0), line: line)
    }

    private mutating func emit(
        _ tail: UnsafeBufferPointer<UInt8>, line: (UnsafeBufferPointer<UInt8>, Int) throws -> Void
    )
        throws
    {
        lineCount += 1
        guard pending.count + tail.count <= maximumLineSize else {
            throw ConnectionError(.responseTooLarge(limit: Int64(maximumLineSize)))
        }
        if pending.isEmpty {
            try line(Self.droppingCR(tail), lineCount)
            return
        }
        pending.append(contentsOf: tail)
        defer { pending.removeAll(keepingCapacity: true) }
        try pending.withUnsafeBufferPointer { try line(Self.droppingCR($0), lineCount) }
    }

    private static func droppingCR(_ line: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        guard let last = line.last, last == 13 else { return line }
        return UnsafeBufferPointer(rebasing: line.dropLast())
    }
}
