import Foundation

/// How a request's parameters are sent: returned by ``AnyConnectionRequest/requestBody`` (default `nil`), it sets
/// the body (or the query) and the matching `Content-Type` unless ``AnyConnectionRequest/requestHeaderFields``
/// already has one.
///
/// | case | where | `Content-Type` |
/// |---|---|---|
/// | ``query(_:)`` | appended to the URL's query (any method; the one to use for GET, HEAD, DELETE) | none |
/// | ``form(_:)`` | body | `application/x-www-form-urlencoded; charset=utf-8` |
/// | ``json(_:)`` | body | `application/json` |
/// | ``multipart(_:)`` | body; above 4 MiB assembled in a temporary file and streamed from disk | `multipart/form-data; boundary=…` |
/// | ``data(_:contentType:)`` | body | the one given |
/// | ``stream(_:)`` | body, pulled from an `AsyncSequence` as it is sent (libcurl transport) | the body's ``StreamedBody/contentType`` |
///
/// A body on a `GET` or `HEAD` fails the request with `invalidRequest`.
public enum RequestBody: Sendable {
    /// Items appended to the URL's query, percent-encoded like ``AnyConnectionRequest/queryItems``.
    case query([URLQueryItem])
    /// Items sent as `name=value&…`, percent-encoded (a space as `%20`, `+` `&` `=` escaped).
    case form([URLQueryItem])
    /// A value encoded with a `JSONEncoder` (sorted keys, default strategies).
    case json(any Encodable & Sendable)
    /// Text fields and files. Up to 4 MiB in all it is sent from memory; above, it is assembled in a temporary
    /// file (files copied in 64 KiB pieces, never held in memory) and streamed from disk.
    case multipart(MultipartForm)
    /// Raw bytes with their content type.
    case data(Data, contentType: String)
    /// Bytes produced as they are sent, from an `AsyncSequence` (see ``StreamedBody``): with its length as
    /// `Content-Length`, or chunked. Made again for a retry or a `307`/`308` hop when it has a factory.
    case stream(StreamedBody)

    /// The `Content-Type` this body is sent with; `nil` for ``query(_:)``.
    public var contentType: String? {
        switch self {
        case .query: return nil
        case .form: return "application/x-www-form-urlencoded; charset=utf-8"
        case .json: return "application/json"
        case .multipart(let form): return form.contentType
        case .data(_, let contentType): return contentType
        case .stream(let body): return body.contentType
        }
    }
}
