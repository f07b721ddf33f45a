import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A request for a stream of text lines (a log tail, a plain-text feed): each line, without its LF or
/// CRLF, is delivered as it arrives (``LineDecoder``). Empty lines are delivered too.
///
/// ```swift
/// final class TailLog: LineStreamRequest, @unchecked Sendable {
///     override var url: URL? { URL(string: "https://api.example.com/log.txt") }
/// }
/// ```
open class LineStreamRequest: StreamingConnectionRequest<String>, @unchecked Sendable {
    // Safe: no stored state of its own.

    /// Creates an idle request.
    public override init() {
        super.init()
    }

    /// A ``LineDecoder`` limited to ``StreamingConnectionRequest/maximumElementSize`` per line.
    open override func makeDecoder(for response: ConnectionResponse) throws -> any StreamDecoder<String> {
        LineDecoder(maximumLineSize: maximumElementSize)
    }
}
