import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A request to a JSON API: decodes the body as `Output` with ``decoder`` and sends
/// `Accept: application/json`. A ``bodyObject`` is encoded as the JSON body with
/// `Content-Type: application/json`.
///
/// ```swift
/// struct Event: Decodable, Sendable { let id: Int; let name: String }
///
/// final class FetchEvents: JSONConnectionRequest<[Event]>, @unchecked Sendable {
///     override var url: URL? { URL(string: "https://api.example.com/events.json") }
/// }
///
/// let events = try await FetchEvents().value()
/// ```
///
/// An empty body fails with a `parsing` error (never a trap); use `JSONConnectionRequest<JSON>`
/// for JSON of unknown shape.
/// - SeeAlso: <doc:endpoints>
open class JSONConnectionRequest<Output: Decodable & Sendable>: ConnectionRequest<Output>, @unchecked Sendable {
    // Safe: no stored state of its own.

    /// Creates an idle request.
    public override init() {
        super.init()
    }

    /// The decoder for the response. Default: a plain `JSONDecoder()`.
    open var decoder: JSONDecoder { JSONDecoder() }

    /// The encoder for ``bodyObject``. Default: a `JSONEncoder()` with sorted keys.
    open var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }

    /// A value sent as the JSON body. Default `nil` (no body, or ``AnyConnectionRequest/bodyData``).
    open var bodyObject: (any Encodable & Sendable)? { nil }

    /// Builds the request, then sets `Accept: application/json` unless present and, when
    /// ``bodyObject`` is set, encodes it as the body with `Content-Type: application/json`.
    open override func makeURLRequest() throws -> URLRequest {
        var request = try super.makeURLRequest()
        if request.value(forHTTPHeaderField: "Accept") == nil {
            request.setValue("application/json", forHTTPHeaderField: "Accept")
        }
        if let bodyObject {
            do {
                request.httpBody = try encoder.encode(bodyObject)
            } catch {
                throw ConnectionError(.invalidRequest(reason: "the JSON body could not be encoded: \(error)"))
            }
            if request.value(forHTTPHeaderField: "Content-Type") == nil {
                request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            }
        }
        return request
    }

    /// Decodes `data` as `Output`. An empty body throws a `parsing` error saying so.
    open override func parseCompletionData(_ data: Data, response: ConnectionResponse) throws -> Output {
        guard !data.isEmpty else {
            throw ConnectionError(
                .parsing(underlying: EmptyBody(status: response.statusCode, expected: String(describing: Output.self))))
        }
        return try decoder.decode(Output.self, from: data)
    }
}

/// A JSON request got an empty body.
struct EmptyBody: Error, LocalizedError, Sendable {
    let status: Int
    let expected: String
    var errorDescription: String? { "the response body (status \(status)) is empty; expected JSON for \(expected)" }
}
