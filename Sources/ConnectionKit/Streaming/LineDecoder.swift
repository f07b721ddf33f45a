import Foundation

/// Decodes a body as lines of text: each line ended by LF or CRLF (an unterminated last line counts),
/// without its line end, decoded as UTF-8 with invalid bytes replaced by U+FFFD.
///
/// Empty lines are elements too; a line longer than `maximumLineSize` bytes throws
/// `ConnectionError.Kind.responseTooLarge(limit:)`.
public struct LineDecoder: StreamDecoder {
    private var splitter: LineSplitter

    /// Creates a decoder; `maximumLineSize` defaults to ``StreamLimits/defaultMaximumElementSize``.
    public init(maximumLineSize: Int = StreamLimits.defaultMaximumElementSize) {
        splitter = LineSplitter(maximumLineSize: maximumLineSize)
    }

    /// Returns the lines `chunk` completed.
    public mutating func decode(_ chunk: Data) throws -> [String] {
        var elements: [String] = []
        try decode(chunk, into: &elements)
        return elements
    }

    /// Appends the elements `chunk` completed to `elements` (those before an error included).
    public mutating func decode(_ chunk: Data, into lines: inout [String]) throws {
        try splitter.split(chunk) { line, _ in lines.append(String(decoding: line, as: UTF8.self)) }
    }

    /// Returns the unterminated last line, if any.
    public mutating func finish() throws -> [String] {
        var lines: [String] = []
        try splitter.finish { line, _ in lines.append(String(decoding: line, as: UTF8.self)) }
        return lines
    }
}
