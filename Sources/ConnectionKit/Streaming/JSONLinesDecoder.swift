import Foundation

/// Decodes a JSON Lines (NDJSON) body: each line is one JSON value decoded as `Value`.
///
/// Lines end with LF or CRLF; empty (or all-whitespace) lines are ignored. A line that does not
/// decode throws ``JSONLinesError`` naming its line number, unless `skipsInvalidLines` is set, in
/// which case the line is dropped. A line longer than `maximumLineSize` bytes throws
/// `ConnectionError.Kind.responseTooLarge(limit:)`.
public struct JSONLinesDecoder<Value: Decodable & Sendable>: StreamDecoder {
    private var splitter: LineSplitter
    private let decoder: JSONDecoder
    private let skipsInvalidLines: Bool

    /// Creates a decoder. `maximumLineSize` defaults to ``StreamLimits/defaultMaximumElementSize``.
    public init(
        decoder: JSONDecoder = JSONDecoder(), skipsInvalidLines: Bool = false,
        maximumLineSize: Int = StreamLimits.defaultMaximumElementSize
    ) {
        self.splitter = LineSplitter(maximumLineSize: maximumLineSize)
        self.decoder = decoder
        self.skipsInvalidLines = skipsInvalidLines
    }

    /// Returns the values of the lines `chunk` completed.
    public mutating func decode(_ chunk: Data) throws -> [Value] {
        var elements: [Value] = []
        try decode(chunk, into: &elements)
        return elements
    }

    /// Appends the elements `chunk` completed to `elements` (those before an error included).
    public mutating func decode(_ chunk: Data, into values: inout [Value]) throws {
        let (decoder, skips) = (self.decoder, skipsInvalidLines)
        try splitter.split(chunk) { line, number in
            try Self.decodeLine(line, number: number, decoder: decoder, skipsInvalidLines: skips, into: &values)
        }
    }

    /// Returns the value of an unterminated last line, if any.
    public mutating func finish() throws -> [Value] {
        var values: [Value] = []
        let (decoder, skips) = (self.decoder, skipsInvalidLines)
        try splitter.finish { line, number in
            try Self.decodeLine(line, number: number, decoder: decoder, skipsInvalidLines: skips, into: &values)
        }
        return values
    }

    private static func decodeLine(
        _ line: UnsafeBufferPointer<UInt8>, number: Int, decoder: JSONDecoder, skipsInvalidLines: Bool,
        into values: inout [Value]
    ) throws {
        // Space, tab, CR: a blank line carries no value.
        guard line.contains(where: { $0 != 32 && $0 != 9 && $0 != 13 }) else { return }
        do {
            values.append(try decoder.decode(Value.self, from: Data(line)))
        } catch {
            guard !skipsInvalidLines else { return }
            throw JSONLinesError(lineNumber: number, underlyingError: error)
        }
    }
}
