import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A request for a JSON Lines (NDJSON) stream: each line of the body is decoded as one `Value` and
/// delivered as it arrives.
///
/// ```swift
/// struct LogEntry: Decodable, Sendable { let level: String; let message: String }
///
/// final class FollowLogEntries: JSONLinesRequest<LogEntry>, @unchecked Sendable {
///     override var url: URL? { URL(string: "https://api.example.com/log.ndjson") }
/// }
/// ```
///
/// Empty lines are ignored. A line that does not decode fails the request with
/// `ConnectionError.Kind.parsing(underlying:)` holding a ``JSONLinesError`` that names the line number,
/// or is skipped when ``skipsInvalidLines`` is `true`. Sends `Accept: application/x-ndjson` unless
/// the request sets another.
open class JSONLinesRequest<Value: Decodable & Sendable>: StreamingConnectionRequest<Value>, @unchecked Sendable {
    // Safe: no stored state of its own.

    /// Creates an idle request.
    public override init() {
        super.init()
    }

    /// Decodes each line. Default: a plain `JSONDecoder()`.
    open var decoder: JSONDecoder { JSONDecoder() }

    /// Whether a line that does not decode is dropped instead of failing the request. Default `false`.
    open var skipsInvalidLines: Bool { false }

    /// Adds `Accept: application/x-ndjson` unless set.
    open override func makeURLRequest() throws -> URLRequest {
        var request = try super.makeURLRequest()
        if request.value(forHTTPHeaderField: "Accept") == nil {
            request.setValue("application/x-ndjson", forHTTPHeaderField: "Accept")
        }
        return request
    }

    /// A ``JSONLinesDecoder`` with ``decoder``, ``skipsInvalidLines`` and
    /// ``StreamingConnectionRequest/maximumElementSize`` as its line limit.
    open override func makeDecoder(for response: ConnectionResponse) throws -> any StreamDecoder<Value> {
        JSONLinesDecoder<Value>(
            decoder: decoder, skipsInvalidLines: skipsInvalidLines, maximumLineSize: maximumElementSize)
    }
}
