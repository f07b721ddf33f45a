import Foundation

extension ConnectionError {
    /// What went wrong: one of a set of kinds that can grow without breaking your code.
    ///
    /// A kind is a value, not an enum: a new kind in a later release does not break a `switch` (which
    /// needs a `default:`), and you compare kinds with `==` or match them in `case`:
    ///
    /// ```swift
    /// switch error.kind {
    /// case .timedOut, .transport: showOfflineBanner()
    /// case .unacceptableStatusCode where error.statusCode == 404: showNotFound()
    /// default: showMessage(error.localizedDescription)
    /// }
    /// ```
    ///
    /// Kinds compare by ``name`` only: the details (a status, a reason, a limit, an underlying error) are
    /// read from the error: ``ConnectionError/statusCode``, ``ConnectionError/responseBody``,
    /// ``ConnectionError/reason``, ``ConnectionError/limit``, ``ConnectionError/urlError``,
    /// ``ConnectionError/tlsFailure``, ``ConnectionError/underlyingError``. The functions that take
    /// details (`.unacceptableStatusCode(404, body: data)`) make a kind that carries them, for creating an
    /// error.
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        /// The kinds there are; a new one is added here and in ``ConnectionError/Kind``'s static members.
        enum Code: String, Sendable, CaseIterable {
            case cancelled, timedOut, invalidRequest, transport, unacceptableStatusCode, parsing, fileSystem
            case responseTooLarge, tooManyRedirects, streamBufferFull, tls, clientShutDown, transportUnavailable
            case bodyNotReplayable, requestBodyFailed, other
            case middleware
        }

        /// What an error of this kind carries besides its kind.
        enum Detail: Sendable {
            case none
            case reason(String)
            case urlError(URLError)
            case status(Int, body: Data?)
            case underlying(any Error)
            case limit(Int64)
            case tls(TLSFailure)
            case middleware(name: String, underlying: (any Error)?, reason: String?)
        }

        let code: Code
        let detail: Detail

        init(_ code: Code, _ detail: Detail = .none) {
            self.code = code
            self.detail = detail
        }

        /// The kind's short, stable name, e.g. `timedOut` or `unacceptableStatusCode`: the same in every
        /// release, for logs, metrics and the history's ``ConnectionHistoryRecord/errorKind``.
        public var name: String { code.rawValue }

        /// The same as ``name``.
        public var description: String { name }

        /// Whether the two are the same kind (their details are not compared).
        public static func == (lhs: Kind, rhs: Kind) -> Bool { lhs.code == rhs.code }

        /// Hashes the kind's name.
        public func hash(into hasher: inout Hasher) { hasher.combine(code) }

        /// Every kind, in declaration order.
        static let all: [Kind] = Code.allCases.map { Kind($0) }

        // MARK: - The kinds

        /// The request was cancelled: by `cancel()`, the registry, or the awaiting Task.
        public static let cancelled = Kind(.cancelled)
        /// No byte arrived for `timeoutInterval`, or the retry policy's overall deadline passed.
        public static let timedOut = Kind(.timedOut)
        /// The request could not be built: no URL, an unsupported scheme, a GET with a body, a body that
        /// failed to encode, or a throwing `makeURLRequest()`. ``ConnectionError/reason`` says which.
        public static let invalidRequest = Kind(.invalidRequest)
        /// The transport failed: connection refused or lost, DNS failure, TLS, a malformed response.
        /// ``ConnectionError/urlError`` is the transport's error.
        public static let transport = Kind(.transport)
        /// The server answered with a status `validate(_:data:)` rejected (by default: not 2xx).
        /// ``ConnectionError/statusCode`` is the status, ``ConnectionError/responseBody`` the body when
        /// it was kept in memory.
        public static let unacceptableStatusCode = Kind(.unacceptableStatusCode)
        /// `parseCompletionData` threw: an empty or malformed JSON body, a type mismatch.
        /// ``ConnectionError/underlyingError`` is what it threw.
        public static let parsing = Kind(.parsing)
        /// Reading or writing a file failed: a missing or unwritable destination folder, a destination
        /// that is a folder, a full disk. ``ConnectionError/underlyingError`` is the file error.
        public static let fileSystem = Kind(.fileSystem)
        /// The response was larger than the request's limit (body or headers), ``ConnectionError/limit`` bytes.
        public static let responseTooLarge = Kind(.responseTooLarge)
        /// Redirects were followed ``ConnectionError/limit`` times without reaching a final response.
        public static let tooManyRedirects = Kind(.tooManyRedirects)
        /// A streaming request's consumer fell behind: more than ``ConnectionError/limit`` elements (or,
        /// when the limit is ``StreamingConnectionRequest/maximumBufferedBytes``, bytes) were waiting and
        /// the transport could not pause (URLSession cannot).
        public static let streamBufferFull = Kind(.streamBufferFull)
        /// A secure connection could not be made, or would not be secure: an untrusted, expired or
        /// misnamed certificate, a pin mismatch, a refused client certificate, a failed handshake, a
        /// configuration the transport cannot honour, or a redirect from `https` to `http`. Never
        /// retried by ``RetryPolicy``. ``ConnectionError/tlsFailure`` says which.
        public static let tls = Kind(.tls)
        /// The request's ``ConnectionClient`` is shut down (or shutting down): the request was not started
        /// and nothing was sent. Never retried by ``RetryPolicy``.
        public static let clientShutDown = Kind(.clientShutDown)
        /// The request's transport cannot run in this process: a client created with
        /// `ConnectionClient(transport: .libcurl())` where libcurl cannot be loaded, is too old, or the platform
        /// is not Linux. ``ConnectionError/reason`` says why. Nothing was sent; never retried by ``RetryPolicy``.
        public static let transportUnavailable = Kind(.transportUnavailable)
        /// The request needed its streamed body again (a retry, a `307`/`308` redirect, an authorization refresh)
        /// and the body was single-use (``StreamedBody/singleUse(_:length:contentType:)``), already sent. Nothing
        /// more was sent; never retried by ``RetryPolicy``. ``ConnectionError/reason`` says why.
        public static let bodyNotReplayable = Kind(.bodyNotReplayable)
        /// The request's streamed body (``StreamedBody``) failed while it was being sent: its sequence threw
        /// (``ConnectionError/underlyingError``), or produced another number of bytes than its declared length
        /// (``ConnectionError/reason``). The connection is not reused; never retried by ``RetryPolicy``.
        public static let requestBodyFailed = Kind(.requestBodyFailed)
        /// Any other error, e.g. one thrown by an overridden hook (``ConnectionError/underlyingError``).
        public static let other = Kind(.other)
        /// A middleware of the client's pipeline threw, or broke the pipeline's rules (a request it left
        /// invalid, an answer that is not a valid response). ``ConnectionError/middlewareName`` names it;
        /// ``ConnectionError/underlyingError`` is what it threw, ``ConnectionError/reason`` the rule it broke.
        /// Never retried by ``RetryPolicy``.
        public static let middleware = Kind(.middleware)

        // MARK: - Kinds with their details, to create an error

        /// An `invalidRequest` kind carrying `reason`.
        public static func invalidRequest(reason: String) -> Kind { Kind(.invalidRequest, .reason(reason)) }
        /// A `transport` kind carrying the transport's error.
        public static func transport(_ error: URLError) -> Kind { Kind(.transport, .urlError(error)) }
        /// An `unacceptableStatusCode` kind carrying the status and the body.
        public static func unacceptableStatusCode(_ status: Int, body: Data?) -> Kind {
            Kind(.unacceptableStatusCode, .status(status, body: body))
        }
        /// A `parsing` kind carrying what the parser threw.
        public static func parsing(underlying: any Error) -> Kind { Kind(.parsing, .underlying(underlying)) }
        /// A `fileSystem` kind carrying the file error.
        public static func fileSystem(underlying: any Error) -> Kind { Kind(.fileSystem, .underlying(underlying)) }
        /// A `responseTooLarge` kind carrying the limit, in bytes.
        public static func responseTooLarge(limit: Int64) -> Kind { Kind(.responseTooLarge, .limit(limit)) }
        /// A `tooManyRedirects` kind carrying the limit.
        public static func tooManyRedirects(limit: Int) -> Kind { Kind(.tooManyRedirects, .limit(Int64(limit))) }
        /// A `streamBufferFull` kind carrying the limit.
        public static func streamBufferFull(limit: Int) -> Kind { Kind(.streamBufferFull, .limit(Int64(limit))) }
        /// A `tls` kind carrying what went wrong.
        public static func tls(_ failure: TLSFailure) -> Kind { Kind(.tls, .tls(failure)) }
        /// A `transportUnavailable` kind carrying why the transport cannot run.
        public static func transportUnavailable(reason: String) -> Kind { Kind(.transportUnavailable, .reason(reason)) }
        /// A `middleware` kind naming the middleware, with what it threw or the rule it broke.
        public static func middleware(name: String, underlying: (any Error)?, reason: String? = nil) -> Kind {
            Kind(.middleware, .middleware(name: name, underlying: underlying, reason: reason))
        }
        /// A `bodyNotReplayable` kind carrying why the body could not be sent again.
        public static func bodyNotReplayable(reason: String) -> Kind { Kind(.bodyNotReplayable, .reason(reason)) }
        /// A `requestBodyFailed` kind carrying what the body's sequence threw.
        public static func requestBodyFailed(underlying: any Error) -> Kind {
            Kind(.requestBodyFailed, .underlying(underlying))
        }
        /// A `requestBodyFailed` kind carrying why the body could not be sent (a length it did not keep).
        public static func requestBodyFailed(reason: String) -> Kind { Kind(.requestBodyFailed, .reason(reason)) }
        /// An `other` kind carrying the error.
        public static func other(underlying: any Error) -> Kind { Kind(.other, .underlying(underlying)) }
    }
}
