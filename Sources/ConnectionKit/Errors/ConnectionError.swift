import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The one error type ConnectionKit produces.
///
/// Every error carries the request class that produced it (``requestTypeName``), that class's
/// ``errorCode``, and a ``kind`` saying what went wrong. Match on the kind:
///
/// ```swift
/// if let error = error as? ConnectionError, case .unacceptableStatusCode(404, _) = error.kind { ... }
/// ```
///
/// Messages name the request class and never contain a secret. A 401 or 403 reads as a generic
/// "could not be authenticated" message that never says which credential was wrong.
/// - SeeAlso: <doc:errors>
public struct ConnectionError: Error, Sendable, LocalizedError, CustomStringConvertible, CustomDebugStringConvertible {
    /// What went wrong.
    public enum Kind: Sendable {
        /// The request was cancelled: by `cancel()`, the registry, or the awaiting Task.
        case cancelled
        /// No byte arrived for `timeoutInterval`, or the retry policy's overall deadline passed.
        case timedOut
        /// The request could not be built: no URL, an unsupported scheme, a GET with a body,
        /// a body that failed to encode, or a throwing `makeURLRequest()`.
        case invalidRequest(reason: String)
        /// The transport failed: connection refused or lost, DNS failure, TLS, a malformed response.
        case transport(URLError)
        /// The server answered with a status `validate(_:data:)` rejected (by default: not 2xx).
        /// `body` is the response body when it was kept in memory.
        case unacceptableStatusCode(Int, body: Data?)
        /// `parseCompletionData` threw: an empty or malformed JSON body, a type mismatch.
        case parsing(underlying: any Error)
        /// Reading or writing a file failed: a missing or unwritable destination folder,
        /// a destination that is a folder, a full disk.
        case fileSystem(underlying: any Error)
        /// The response was larger than the request's limit (body or headers).
        case responseTooLarge(limit: Int64)
        /// Redirects were followed `limit` times without reaching a final response.
        case tooManyRedirects(limit: Int)
        /// A streaming request's consumer fell behind: more than `limit` elements (or, when `limit` is
        /// ``StreamingConnectionRequest/maximumBufferedBytes``, bytes) were waiting and the transport
        /// could not pause (URLSession cannot). See ``StreamingConnectionRequest/maximumBufferedElements``.
        case streamBufferFull(limit: Int)
        /// A secure connection could not be made, or would not be secure: an untrusted, expired or
        /// misnamed certificate, a pin mismatch, a refused client certificate, a failed handshake, a
        /// configuration the transport cannot honour, or a redirect from `https` to `http`. Never
        /// retried by ``RetryPolicy``. Added with TLS configuration; see ``TLSConfiguration``.
        case tls(TLSFailure)
        /// The request's ``ConnectionClient`` is shut down (or shutting down): the request was not started
        /// and nothing was sent. Never retried by ``RetryPolicy``. Added with ``ConnectionClient``.
        case clientShutDown
        /// Any other error, e.g. one thrown by an overridden hook.
        case other(underlying: any Error)
    }

    /// What went wrong.
    public var kind: Kind
    /// The name of the request class that produced the error, e.g. `FetchEvents`.
    public var requestTypeName: String
    /// The request class's ``AnyConnectionRequest/errorCode`` (default 0).
    public var errorCode: Int
    /// The request's URL with secret query items redacted, when known.
    public var redactedURL: String?

    /// Creates an error.
    public init(_ kind: Kind, requestTypeName: String = "", errorCode: Int = 0, redactedURL: String? = nil) {
        self.kind = kind
        self.requestTypeName = requestTypeName
        self.errorCode = errorCode
        self.redactedURL = redactedURL
    }

    // MARK: - Convenience

    /// A cancellation error with no request context.
    public static var cancelled: ConnectionError { ConnectionError(.cancelled) }
    /// A timeout error with no request context.
    public static var timedOut: ConnectionError { ConnectionError(.timedOut) }

    /// Whether this is a cancellation.
    public var isCancelled: Bool {
        if case .cancelled = kind { return true }
        return false
    }

    /// Whether this is a timeout.
    public var isTimedOut: Bool {
        if case .timedOut = kind { return true }
        if case .transport(let error) = kind, error.code == .timedOut { return true }
        return false
    }

    /// The HTTP status of an `unacceptableStatusCode` error, otherwise `nil`.
    public var statusCode: Int? {
        if case .unacceptableStatusCode(let status, _) = kind { return status }
        return nil
    }

    /// The response body of an `unacceptableStatusCode` error, otherwise `nil`.
    public var responseBody: Data? {
        if case .unacceptableStatusCode(_, let body) = kind { return body }
        return nil
    }

    /// Whether the server refused the request's credentials (401 or 403), or renewing them failed
    /// (``AuthorizationRefreshError``).
    public var isAuthenticationFailure: Bool {
        if case .other(let error) = kind, error is AuthorizationRefreshError { return true }
        return statusCode == 401 || statusCode == 403
    }

    /// The error this one wraps, if any: the `URLError`, the decoding error, the file error.
    public var underlyingError: (any Error)? {
        switch kind {
        case .transport(let error): return error
        case .parsing(let error), .fileSystem(let error), .other(let error): return error
        case .tls(let failure): return failure
        case .cancelled, .timedOut, .invalidRequest, .unacceptableStatusCode, .responseTooLarge, .tooManyRedirects,
            .streamBufferFull, .clientShutDown:
            return nil
        }
    }

    // MARK: - Messages

    /// A one-sentence message naming the request class.
    public var errorDescription: String? {
        let name = requestTypeName.isEmpty ? "The request" : requestTypeName
        switch kind {
        case .cancelled:
            return "\(name) was cancelled."
        case .timedOut:
            return "\(name) timed out."
        case .invalidRequest(let reason):
            return "\(name) is not a valid request: \(reason)"
        case .transport(let error):
            return "\(name) could not reach the server: \(Self.describe(error))"
        case .unacceptableStatusCode(let status, _) where status == 401 || status == 403:
            return "\(name): your credentials could not be authenticated. Check them and try again."
        case .unacceptableStatusCode(let status, _):
            let reason = HTTPURLResponse.localizedString(forStatusCode: status)
            return "\(name) failed: the server answered \(status) \(reason)."
        case .parsing(let error):
            return "\(name) could not read the response: \(Self.describe(error))"
        case .fileSystem(let error)
        where error is OfflineQueueError || (error as? POSIXFileError)?.isOfflineQueue == true:
            let subject = requestTypeName.isEmpty ? "The offline queue" : "\(name) in the offline queue"
            return "\(subject) failed: \(Self.describe(error))"
        case .fileSystem(let error):
            return "\(name) could not save the response: \(Self.describe(error))"
        case .responseTooLarge(let limit):
            return "\(name) failed: the response is larger than its limit of \(limit) bytes."
        case .tooManyRedirects(let limit):
            return "\(name) failed: more than \(limit) redirects."
        case .streamBufferFull(let limit):
            return "\(name) failed: its consumer fell behind by more than \(limit) elements or bytes."
        case .tls(let failure):
            return "\(name) could not make a secure connection: \(failure)"
        case .clientShutDown:
            return "\(name) was not started: its ConnectionClient is shut down."
        case .other(let error):
            return "\(name) failed: \(Self.describe(error))"
        }
    }

    /// The same as ``errorDescription``.
    public var description: String { errorDescription ?? "ConnectionError" }

    /// The message plus the kind, error code and redacted URL, for logs.
    public var debugDescription: String {
        var parts = ["ConnectionError.\(kindName)", description]
        if errorCode != 0 { parts.append("errorCode=\(errorCode)") }
        if let redactedURL { parts.append("url=\(redactedURL)") }
        return parts.joined(separator: " ")
    }

    /// The kind's case name, e.g. `unacceptableStatusCode`.
    var kindName: String {
        switch kind {
        case .cancelled: return "cancelled"
        case .timedOut: return "timedOut"
        case .invalidRequest: return "invalidRequest"
        case .transport: return "transport"
        case .unacceptableStatusCode: return "unacceptableStatusCode"
        case .parsing: return "parsing"
        case .fileSystem: return "fileSystem"
        case .responseTooLarge: return "responseTooLarge"
        case .tooManyRedirects: return "tooManyRedirects"
        case .streamBufferFull: return "streamBufferFull"
        case .tls: return "tls"
        case .clientShutDown: return "clientShutDown"
        case .other: return "other"
        }
    }

    private static func describe(_ error: any Error) -> String {
        if let error = error as? DecodingError {
            return DecodingError.describe(error)
        }
        if let error = error as? URLError {
            // Linux reports a truncated body and TLS failures as code -1 with libcurl's text only.
            return "\(error.localizedDescription) (URLError \(error.code.rawValue))"
        }
        return (error as? LocalizedError)?.errorDescription ?? String(describing: error)
    }
}

extension DecodingError {
    /// A readable one-line description: what was wrong and where (coding path).
    static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let keys = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }
            return keys.isEmpty ? "at the top level" : "at \(keys.joined(separator: "."))"
        }
        switch error {
        case .typeMismatch(let type, let context):
            return "expected \(type) \(path(context)): \(context.debugDescription)"
        case .valueNotFound(let type, let context):
            return "missing \(type) value \(path(context)): \(context.debugDescription)"
        case .keyNotFound(let key, let context):
            return "missing key '\(key.stringValue)' \(path(context))"
        case .dataCorrupted(let context):
            return "malformed data \(path(context)): \(context.debugDescription)"
        @unknown default:
            return String(describing: error)
        }
    }
}
