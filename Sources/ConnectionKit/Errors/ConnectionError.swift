import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The one error type ConnectionKit produces.
///
/// Every error carries the request class that produced it (``requestTypeName``), that class's
/// ``errorCode``, and a ``kind`` saying what went wrong. Compare the kind, and read the details from
/// the error:
///
/// ```swift
/// if let error = error as? ConnectionError, error.kind == .unacceptableStatusCode, error.statusCode == 404 { ... }
/// ```
///
/// Messages name the request class and never contain a secret. A 401 or 403 reads as a generic
/// "could not be authenticated" message that never says which credential was wrong.
/// - SeeAlso: <doc:errors>
public struct ConnectionError: Error, Sendable, LocalizedError, CustomStringConvertible, CustomDebugStringConvertible {
    /// What went wrong.
    public var kind: Kind
    /// The name of the request class that produced the error, e.g. `FetchEvents`.
    public var requestTypeName: String
    /// The request class's ``AnyConnectionRequest/errorCode`` (default 0).
    public var errorCode: Int
    /// The request's URL with secret query items redacted, when known.
    public var redactedURL: String?

    /// Creates an error. `kind` carries its details when made by one of its functions, e.g.
    /// `.unacceptableStatusCode(404, body: data)` or `.invalidRequest(reason: "no URL")`.
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
    public var isCancelled: Bool { kind == .cancelled }

    /// Whether this is a timeout.
    public var isTimedOut: Bool {
        kind == .timedOut || urlError?.code == .timedOut
    }

    /// The HTTP status of an `unacceptableStatusCode` error, otherwise `nil`.
    public var statusCode: Int? {
        if case .status(let status, _) = kind.detail { return status }
        return nil
    }

    /// The response body of an `unacceptableStatusCode` error, when it was kept in memory; otherwise `nil`.
    public var responseBody: Data? {
        if case .status(_, let body) = kind.detail { return body }
        return nil
    }

    /// Why the request could not be built, for an `invalidRequest` error, why its transport cannot run, for a
    /// `transportUnavailable` one, why its streamed body could not be sent, for a `bodyNotReplayable` or
    /// `requestBodyFailed` one, or the pipeline rule a middleware broke, for a `middleware` one; otherwise `nil`.
    public var reason: String? {
        if case .reason(let reason) = kind.detail { return reason }
        if case .middleware(_, _, let reason) = kind.detail { return reason }
        return nil
    }

    /// The name of the middleware that threw or broke the pipeline's rules, for a `middleware` error;
    /// otherwise `nil`.
    public var middlewareName: String? {
        if case .middleware(let name, _, _) = kind.detail { return name }
        return nil
    }

    /// The limit exceeded, for a `responseTooLarge` (bytes), `tooManyRedirects` (redirects) or
    /// `streamBufferFull` (elements or bytes) error; otherwise `nil`.
    public var limit: Int64? {
        if case .limit(let limit) = kind.detail { return limit }
        return nil
    }

    /// The transport's error, for a `transport` error; otherwise `nil`. Its URLs are redacted.
    public var urlError: URLError? {
        if case .urlError(let error) = kind.detail { return error }
        return nil
    }

    /// What went wrong with the secure connection, for a `tls` error; otherwise `nil`.
    public var tlsFailure: TLSFailure? {
        if case .tls(let failure) = kind.detail { return failure }
        return nil
    }

    /// Whether the server refused the request's credentials (401 or 403), or renewing them failed
    /// (``AuthorizationRefreshError``).
    public var isAuthenticationFailure: Bool {
        if kind == .other, underlyingError is AuthorizationRefreshError { return true }
        return statusCode == 401 || statusCode == 403
    }

    /// The error this one wraps, if any: the `URLError`, the decoding error, the file error, the ``TLSFailure``.
    public var underlyingError: (any Error)? {
        switch kind.detail {
        case .urlError(let error): return error
        case .underlying(let error): return error
        case .tls(let failure): return failure
        case .middleware(_, let underlying, _): return underlying
        case .none, .reason, .status, .limit: return nil
        }
    }

    // MARK: - Messages

    /// A one-sentence message naming the request class.
    public var errorDescription: String? {
        let name = requestTypeName.isEmpty ? "The request" : requestTypeName
        let details = underlyingError.map { Self.describe($0) } ?? "unknown"
        switch kind.code {
        case .cancelled:
            return "\(name) was cancelled."
        case .timedOut:
            return "\(name) timed out."
        case .invalidRequest:
            return "\(name) is not a valid request: \(reason ?? "unknown")"
        case .transport:
            return "\(name) could not reach the server: \(details)"
        case .unacceptableStatusCode:
            return Self.statusMessage(name, status: statusCode)
        case .parsing:
            return "\(name) could not read the response: \(details)"
        case .fileSystem:
            return fileSystemMessage(name, details: details)
        case .responseTooLarge:
            return "\(name) failed: the response is larger than its limit of \(limit ?? 0) bytes."
        case .tooManyRedirects:
            return "\(name) failed: more than \(limit ?? 0) redirects."
        case .streamBufferFull:
            return "\(name) failed: its consumer fell behind by more than \(limit ?? 0) elements or bytes."
        case .tls:
            return "\(name) could not make a secure connection: \(tlsFailure.map { "\($0)" } ?? "unknown")"
        case .clientShutDown:
            return "\(name) was not started: its ConnectionClient is shut down."
        case .transportUnavailable:
            return "\(name) was not sent: its transport is unavailable: \(reason ?? "unknown")"
        case .bodyNotReplayable:
            return "\(name) was not sent again: \(reason ?? "its streamed body is single-use.")"
        case .requestBodyFailed:
            return "\(name) failed while sending its body: \(reason ?? details)"
        case .other:
            return "\(name) failed: \(details)"
        case .middleware:
            let problem = reason ?? underlyingError.map { Self.describe($0) } ?? "unknown"
            return "\(name) failed in middleware \(middlewareName ?? "unknown"): \(problem)"
        }
    }

    private static func statusMessage(_ name: String, status: Int?) -> String {
        guard let status else { return "\(name) failed: the server answered with an unacceptable status." }
        if status == 401 || status == 403 {
            return "\(name): your credentials could not be authenticated. Check them and try again."
        }
        let reason = HTTPURLResponse.localizedString(forStatusCode: status)
        return "\(name) failed: the server answered \(status) \(reason)."
    }

    private func fileSystemMessage(_ name: String, details: String) -> String {
        let error = underlyingError
        guard error is OfflineQueueError || (error as? POSIXFileError)?.isOfflineQueue == true else {
            return "\(name) could not save the response: \(details)"
        }
        let subject = requestTypeName.isEmpty ? "The offline queue" : "\(name) in the offline queue"
        return "\(subject) failed: \(details)"
    }

    /// The same as ``errorDescription``.
    public var description: String { errorDescription ?? "ConnectionError" }

    /// The message plus the kind, error code and redacted URL, for logs.
    public var debugDescription: String {
        var parts = ["ConnectionError.\(kind.name)", description]
        if errorCode != 0 { parts.append("errorCode=\(errorCode)") }
        if let redactedURL { parts.append("url=\(redactedURL)") }
        return parts.joined(separator: " ")
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
