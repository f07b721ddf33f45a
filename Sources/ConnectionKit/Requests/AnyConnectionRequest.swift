import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The non-generic root of every request: it owns the lifecycle and every hook that does not depend
/// on the output type. The registry holds these.
///
/// Subclass ``ConnectionRequest``, ``JSONConnectionRequest`` or ``BasicConnectionRequest`` rather
/// than this class: one subclass per API endpoint, overriding the hooks below (only ``url`` is required).
///
/// **Threads.** A run awaited with ``ConnectionRequest/value()`` runs its hooks, handlers and progress
/// reports in the awaiting task and never waits on ``callbackQueue``; a run started with ``start()`` runs its
/// handlers on ``callbackQueue`` (default `.main`), and its other hooks (``url``, ``makeURLRequest()``,
/// ``validate(_:data:)``, `parseCompletionData`…) on ConnectionKit's queues or the caller of ``start()``.
/// Never on the main queue by ConnectionKit's choice, and never while ConnectionKit holds a lock.
///
/// **Exactly one ending.** Every ``start()`` ends exactly once: the completion path or the failure
/// path, never both, never twice, never none; also under ``cancel()`` racing completion, timeouts,
/// retries and registry-wide cancels.
/// - SeeAlso: <doc:endpoints>
open class AnyConnectionRequest: @unchecked Sendable, CustomDebugStringConvertible {
    // Safe to share across threads: every mutable stored property lives in `storage`, behind its lock;
    // subclasses expose their settings as computed (overridden) properties.
    let storage = Locked(RequestState())

    /// Creates an idle request.
    public init() {}

    // MARK: - Hooks: what to send

    /// The endpoint's URL: the one hook an endpoint must provide. Default: ``baseURL`` joined with
    /// ``path`` and ``queryItems`` (see `docs/client-and-authorization.md`), or `nil` when ``baseURL`` is `nil`.
    /// A `nil` URL fails the request with `ConnectionError.invalidRequest` naming the class.
    open var url: URL? {
        guard let baseURL else { return nil }
        return URLComposer.compose(baseURL: baseURL, path: path, queryItems: queryItems)
    }

    /// The API's root, e.g. `https://api.example.com/v1/`: overridden once in an app's superclass, or given
    /// to the client (``ConnectionClient/Settings/baseURL``). Default: the client's, else `nil`.
    open var baseURL: URL? { runClient.settings.baseURL }

    /// The endpoint's path relative to ``baseURL``, e.g. `events.json`. Slashes between the two are
    /// normalised; characters that are not allowed in a path are percent-encoded. Default `""`.
    open var path: String { "" }

    /// Query items appended to the composed URL (after any query ``baseURL`` already has), percent-
    /// encoded (`+` and `&` in values included). Default `[]`.
    open var queryItems: [URLQueryItem] { [] }

    /// The HTTP method. Default `.get`.
    open var httpMethod: HTTPMethod { .get }

    /// Header fields set on the request; each replaces any earlier value of the same name
    /// (case-insensitively), never appends. Default `[:]`, or what ``instanceSettings`` sets.
    open var requestHeaderFields: [String: String] {
        storage.withLock { $0.instanceSettings.requestHeaderFields } ?? [:]
    }

    /// The request body. Default `nil`. A `GET` or `HEAD` with a body fails with `invalidRequest`.
    open var bodyData: Data? { nil }

    /// Seconds without a byte sent or received before the attempt fails with `.timedOut`.
    /// Default: what ``instanceSettings`` sets, else the client's (``ConnectionClient/Settings/timeoutInterval``),
    /// else 60. Fractions are honoured (URLSession on Linux truncates its own to whole seconds, so
    /// ConnectionKit enforces this one itself). Must be positive.
    open var timeoutInterval: TimeInterval {
        storage.withLock { $0.instanceSettings.timeoutInterval ?? $0.client.settings.timeoutInterval } ?? 60
    }

    /// When a failed attempt is retried. Default: what ``instanceSettings`` sets, else the client's
    /// (``ConnectionClient/Settings/retryPolicy``), else ``RetryPolicy/none``.
    open var retryPolicy: RetryPolicy {
        storage.withLock { $0.instanceSettings.retryPolicy ?? $0.client.settings.retryPolicy } ?? .none
    }

    /// Credentials applied to every attempt's `Authorization` header, unless the built request
    /// already has one. Default `nil`. Not re-applied after a redirect to another origin. A token
    /// holding CR, LF or NUL fails the request with `invalidRequest` (the token is not shown). Default: the
    /// client's (``ConnectionClient/Settings/authorization``), else `nil`.
    open var authorization: Authorization? { runClient.settings.authorization }

    /// Header names (case-insensitive) whose values are shown as `<redacted>` in debug output,
    /// cURL strings, snapshots and events, in addition to `Authorization`, `Proxy-Authorization`,
    /// `Cookie` and `Set-Cookie`, which are always redacted. Like those, they are dropped when a
    /// redirect leaves the origin. Default `[]`.
    open var secretHeaderFields: Set<String> { [] }

    /// Query item names whose values are redacted like ``secretHeaderFields`` (items separated by `&`
    /// or `;`), also in error reasons and in a transport error's `URLError`. Default `[]`.
    open var secretQueryItems: Set<String> { [] }

    /// Whether 301, 302, 303, 307 and 308 responses are followed. Default `true`. 303 (and 301/302
    /// after a `POST`) continue as `GET` without a body; 307 and 308 keep the method and body.
    /// Crossing to another origin drops `Authorization`, `Proxy-Authorization`, `Cookie` and every
    /// header in ``secretHeaderFields``.
    open var followsRedirects: Bool { true }

    /// The most redirects followed before failing with `.tooManyRedirects`. Default 10.
    open var maximumRedirects: Int { 10 }

    /// The largest response body kept in memory, in bytes; a larger one fails with
    /// `.responseTooLarge` as soon as it is known to be larger. Default 128 MiB. Bodies saved
    /// to a file (``fileDestination``) have no limit.
    open var maximumResponseBodySize: Int64 { 128 * 1024 * 1024 }

    /// A code of your choosing, carried on every ``ConnectionError`` this request produces. Default 0.
    open var errorCode: Int { 0 }

    /// Progress is delivered at most this often per direction, in seconds (plus once at the end of
    /// each direction). Default 0.1, or what ``instanceSettings`` sets.
    open var progressInterval: TimeInterval { storage.withLock { $0.instanceSettings.progressInterval } ?? 0.1 }

    /// Values set on this instance for ``progressInterval``, ``timeoutInterval``, ``retryPolicy`` and
    /// ``requestHeaderFields``, for a one-off request that is not worth a subclass (a
    /// ``DownloadRequest/init(from:to:)``, a ``BasicConnectionRequest``). Default: none set. A subclass's
    /// override of a hook wins over its setting here. See ``InstanceSettings``.
    public var instanceSettings: InstanceSettings {
        get { storage.withLock { $0.instanceSettings } }
        set { storage.withLock { $0.instanceSettings = newValue } }
    }

    /// Where the response body is saved. Default `nil` (kept in memory). When set, the body streams
    /// to a temporary file beside the destination and is renamed into place only when complete and
    /// validated; on failure or cancel nothing appears at the destination. Settable.
    open var fileDestination: URL? {
        get { storage.withLock { $0.fileDestination } }
        set { storage.withLock { $0.fileDestination = newValue } }
    }

    // MARK: - Hooks: building, checking, failing

    /// Builds the request from ``url``, ``httpMethod``, ``defaultHeaderFields``, ``requestHeaderFields``,
    /// ``bodyData``, ``requestBody`` and ``timeoutInterval``. Called once per attempt. Override to customise the `URLRequest`;
    /// a thrown error fails the request (a `ConnectionError` as is, anything else as `invalidRequest`).
    /// ``authorization`` is applied after this returns.
    ///
    /// The default fails with `invalidRequest`, naming the hook and the header, when ``httpMethod`` or a
    /// header name is not an HTTP token or a header value holds CR, LF or NUL (`URLRequest` would drop
    /// such a value silently). Whatever this returns is checked the same way before every attempt and
    /// redirect hop.
    open func makeURLRequest() throws -> URLRequest {
        guard let url else {
            throw ConnectionError(
                .invalidRequest(reason: "\(Self.self) has no URL. Override `url` (or `baseURL` and `path`)."))
        }
        let method = httpMethod.rawValue
        let headers = requestHeaderFields
        let overridden = Set(headers.keys.map { $0.lowercased() })
        // Checked before they reach `URLRequest`, which drops a value holding CR, LF or NUL without a word.
        let defaults = defaultHeaderFields.filter { !overridden.contains($0.key.lowercased()) }
        try WireValidation.check(method: method, headerFields: [], hook: "httpMethod")
        try WireValidation.check(
            method: nil, headerFields: defaults.map { ($0.key, $0.value) }, hook: "defaultHeaderFields")
        try WireValidation.check(
            method: nil, headerFields: headers.map { ($0.key, $0.value) }, hook: "requestHeaderFields")
        var request = URLRequest(url: url)
        // A new URLRequest's method is GET; setting it costs a microsecond on Linux, on every request.
        if method != request.httpMethod { request.httpMethod = method }
        for (name, value) in defaults {
            request.setValue(value, forHTTPHeaderField: name)
        }
        for (name, value) in headers {
            request.setValue(value, forHTTPHeaderField: name)
        }
        if let bodyData { request.httpBody = bodyData }
        try applyRequestBody(to: &request)
        return request
    }

    /// Checks the final response before its body is parsed. Default: 2xx passes; anything else throws
    /// `ConnectionError.unacceptableStatusCode` with the status and the body (when in memory).
    /// Override to accept other statuses or to reject a 2xx.
    open func validate(_ response: ConnectionResponse, data: Data?) throws {
        guard (200..<300).contains(response.statusCode) else {
            throw ConnectionError(.unacceptableStatusCode(response.statusCode, body: data))
        }
    }

    /// Maps a failure to the error the failure handler receives. Default: the client's
    /// ``ConnectionClient/Settings/mapError``, else `error` unchanged. Override in an app superclass to turn an
    /// API's error body into the app's own error type.
    open func parseError(_ error: ConnectionError) -> any Error {
        guard let map = runClient.settings.mapError else { return error }
        return map(error)
    }

    /// Delivers a failure: the default calls ``failureHandler`` (and ends ``ConnectionRequest/value()``).
    /// Runs on ``callbackQueue`` (a ``start()`` run) or in the task awaiting ``ConnectionRequest/value()``.
    /// Override to report every failure of an app in one place; call
    /// `super` to still reach the handler.
    open func handleConnectionError(_ error: any Error) {
        let handler = storage.withLock { $0.failureHandler }
        handler?(error)
        resolveWaiters(with: .failure(error))
    }

    // MARK: - Retries and limits

    /// Whether a failed attempt is tried again, and after how long. Asked after every failed attempt
    /// (transport error, timeout, rejected status, size limit, parsing error), never after a cancel,
    /// an invalid request or the deadline. `attempt` is the number of the attempt that failed,
    /// starting at 1; `response` is its response, if one arrived. Runs on a ConnectionKit queue.
    ///
    /// Default: ``retryPolicy`` decides, from the method of the attempt's first request (before
    /// redirects, since that is what a retry sends again), and waits for `Retry-After` when the
    /// response has one and the policy honours it, otherwise for the policy's backoff. Override to
    /// decide per class; return ``RetryDecision/retry(after:)`` to retry (whatever the policy says,
    /// still within its ``RetryPolicy/deadline``) or ``RetryDecision/doNotRetry`` to end with `error`.
    open func retryDecision(for error: ConnectionError, attempt: Int, response: ConnectionResponse?)
        -> RetryDecision
    {
        let policy = retryPolicy
        let sent = storage.withLock { $0.attemptRequest ?? $0.sentRequest }
        guard policy.allowsRetry(of: error, attempt: attempt, request: sent) else { return .doNotRetry }
        return .retry(after: policy.retryAfterDelay(from: response) ?? policy.backoff(beforeRetry: attempt))
    }

    // MARK: - Client: default headers, body, authorization refresh

    /// Header fields sent with every request of the class, under ``requestHeaderFields`` (which wins for the
    /// same name). Override once in an app superclass, e.g. with `DefaultHeaders.standard(appName:appVersion:)`,
    /// or give them to the client (``ConnectionClient/Settings/headerFields``). Default: the client's.
    open var defaultHeaderFields: [String: String] { runClient.settings.headerFields }

    /// The parameters or body to send and how to encode them (query, form, JSON, multipart), with the matching
    /// `Content-Type`. Applied after ``bodyData`` (and replaces it when it sets a body). Default `nil`.
    open var requestBody: RequestBody? { nil }

    /// Renews the credential when a request is refused with `401`: return one instance shared by all the
    /// requests of an app superclass (a `static let`). The request waits for the refresh, then sends again once
    /// with a fresh ``authorization``; concurrent `401`s share one refresh. Default: the client's
    /// (``ConnectionClient/Settings/authorizationRefresher``), else `nil` (a `401` fails).
    open var authorizationRefresher: AuthorizationRefresher? { runClient.settings.authorizationRefresher }

    /// Middleware for this class's requests, after the client's (``ConnectionClient/middleware``) and before
    /// the built-in stages: see ``ConnectionMiddleware``. Read when a run starts. Default `[]`.
    open var middleware: [any ConnectionMiddleware] { [] }

    /// The ``ConnectionClient`` this class's requests belong to: its registry lists them, its history and
    /// statistics count them, its transport moves them (unless ``transport`` is overridden), its shutdown
    /// drains them. Default ``ConnectionClient/shared``. Override it once in an app superclass, returning
    /// one instance (a `static let`). Read at every ``start()``: a run stays with the client it started on.
    /// A run started with ``start(on:)`` or ``ConnectionRequest/value(on:)`` is on the client given there
    /// instead, whatever this returns.
    open var client: ConnectionClient { .shared }

    // MARK: - Debug output

    /// Whether this class prints debug output (a request block per attempt, a response block at
    /// the end) to ``ConnectionDebug/sink``. Default `nil`: follow ``ConnectionDebug/isEnabled``
    /// (off by default). Read once per ``start()``. See `docs/registry-and-debugging.md`.
    open var isDebugOutputEnabled: Bool? { nil }

    // MARK: - Saving to file

    /// Whether an interrupted download to ``fileDestination`` can be resumed. Default `false`.
    ///
    /// When `true`, a transfer that fails or is cancelled midway keeps its partial file (hidden, beside
    /// the destination, named `.<name>.ckpart`) together with the response's validator (a strong
    /// `ETag`, else `Last-Modified`); the next start (a retry or a later ``start()``) asks for the
    /// rest with `Range: bytes=N-` and `If-Range`. A 206 for that range is appended; a 200 (the server
    /// ignores ranges, or the file changed) starts the file over; a 416 or a 206 for another range
    /// removes the partial file and asks again without `Range`. A response with no validator is
    /// never resumed: its partial file is removed like any other.
    open var resumesInterruptedDownloads: Bool { false }

    /// The exact size in bytes the saved file must have; checked before it is renamed into place.
    /// Default `nil` (not checked). A mismatch fails with `ConnectionError.fileSystem` wrapping a
    /// ``FileIntegrityError`` and leaves nothing at the destination.
    open var expectedFileSize: Int64? { nil }

    /// The SHA-256 digest (64 hexadecimal digits, any case) the saved file must have; computed while
    /// the body is written and checked before it is renamed into place. Default `nil` (not checked).
    /// A mismatch fails with `ConnectionError.fileSystem` wrapping a ``FileIntegrityError`` and
    /// leaves nothing at the destination; a value that is not 64 hexadecimal digits fails the request
    /// with `invalidRequest` before anything is sent.
    open var expectedSHA256: String? { nil }

    /// The largest response header block accepted, in bytes, counted from the parsed header fields
    /// (name, value and 4 bytes per field); a larger one fails the attempt with `.responseTooLarge`
    /// before its body is read. Default 128 KiB. On Linux, libcurl refuses a header block over
    /// 300 KiB, or one header line over 100 KiB, whatever this says; that also ends in `.responseTooLarge`.
    open var maximumResponseHeaderSize: Int { 128 * 1024 }

    /// What moves this class's bytes. Default: the transport of the run's client (``client``, or the one given
    /// to ``start(on:)``) (for ``ConnectionClient/shared``,
    /// ``ConnectionTransport/default``: URLSession unless the app chose otherwise). Override it, e.g. in an
    /// app superclass, to send some classes over libcurl on Linux (``ConnectionTransport/libcurl()``). Read
    /// at the start of every transfer.
    open var transport: ConnectionTransport { runClient.transport }

    /// The proxy this class's requests go through, e.g. `http://proxy.internal:3128` (user name and
    /// password may be in the URL; they never appear in debug output or errors). Schemes: `http`,
    /// `https`, `socks4`, `socks4a`, `socks5`, `socks5h`; an `https` request goes through an HTTP proxy
    /// in a `CONNECT` tunnel. Default `nil`: over libcurl, the environment's `http_proxy`, `https_proxy`,
    /// `all_proxy` and `no_proxy` apply, as `curl` reads them. A proxy set here applies to every host
    /// (`no_proxy` is not consulted). Needs the libcurl transport (``transport``): over URLSession a
    /// proxy set here fails the request with `invalidRequest` before anything is sent, rather than
    /// being ignored. Read at the start of every transfer.
    open var proxy: URL? { nil }

    /// How this class makes TLS connections: trusted CAs, pinned keys, a client certificate, the
    /// minimum TLS version. Default ``TLSConfiguration/default`` (the system store, TLS 1.2 or later).
    /// Override it once in an app superclass. Anything beyond the default needs the libcurl transport
    /// on Linux; over URLSession the request fails before sending. Read at the start of every transfer.
    open var tls: TLSConfiguration { .default }

    /// The cookie jar this class's requests share (RFC 6265). Default: the run's client's (``client``, or the
    /// one given to ``start(on:)``) ``ConnectionClient/cookieJar``, which is `nil` unless the client was made with one (never for
    /// ``ConnectionClient/shared``): then no cookies are stored and a request sends exactly the `Cookie`
    /// header it sets. Give your client a jar, or override this hook once in an app superclass with one
    /// jar (`static let jar = CookieJar()`): every `Set-Cookie` of its responses is stored, redirect hops
    /// included, and each transfer, each hop of a redirect too, gets the cookies of its own URL, after the
    /// `Cookie` header the request sets itself (kept; a cookie named there is not added again). Read at the
    /// start of every transfer and at every response.
    open var cookieJar: CookieJar? { runClient.cookieJar }

    /// The HTTP cache (RFC 9111) this class's requests use. Default: the run's client's (``client``, or the
    /// one given to ``start(on:)``) ``ConnectionClient/httpCache``, which is `nil` unless the client was made with one (never for
    /// ``ConnectionClient/shared``): then every request goes to the network, as before caching existed.
    /// With a cache, ``cachePolicy`` says how it is used, and an unsafe request (`POST`, `PUT`, `PATCH`,
    /// `DELETE`) answered with a 2xx or 3xx removes the stored responses of its URL whatever the policy.
    /// Read once per attempt. See <doc:caching>.
    open var httpCache: HTTPCache? { runClient.httpCache }

    /// How this class uses its ``httpCache``. Default: ``HTTPCachePolicy/useCache`` when the class has a
    /// cache (a client made with one expects it used: RFC 9111, fresh answers without the network, stale
    /// ones revalidated), ``HTTPCachePolicy/networkOnly`` without one. Override it with
    /// ``HTTPCachePolicy/networkOnly`` for reads that must never be answered from the cache, or
    /// ``HTTPCachePolicy/offlineFirst`` for those that should answer stale when the network fails. Only
    /// `GET` (and `HEAD`, from a stored `GET`) whose body is kept in memory is answered and stored: a body
    /// saved to a file (``fileDestination``, ``DownloadRequest``) or streamed is not. Read once per attempt.
    open var cachePolicy: HTTPCachePolicy { httpCache == nil ? .networkOnly : .useCache }

    // MARK: - Output (overridden by ConnectionRequest)

    /// Turns the completed body into the output; runs on a processing queue.
    func produceOutput(body: CompletedBody, response: ConnectionResponse) throws -> any Sendable {
        try body.data()
    }

    /// Delivers the output on the callback queue.
    func deliverOutput(_ output: any Sendable) {
        resolveWaiters(with: .success(output))
    }

    // MARK: - Streaming (overridden by StreamingConnectionRequest)

    /// The sink that decodes the body of `response` as it arrives, or `nil` to buffer it as usual.
    /// Throws when the response cannot be a stream; the run then fails without a retry.
    func streamSink(for response: ConnectionResponse, run: RunNumber) throws -> (any BodySink)? {
        nil
    }

    /// Whether ``streamSink(for:run:)`` may return a sink: the request streams its body.
    var isStreaming: Bool { false }

    /// The number of elements the current (or last) run received, for snapshots; `nil` when the
    /// request does not stream.
    var streamedElementCount: Int? { nil }

    /// Run `run` was just claimed to end with `outcome` (called once per run, on any thread, before
    /// the ending is delivered).
    func runWillEnd(_ run: RunNumber, outcome: RunOutcome) {}

    // MARK: - Handlers and settings

    /// Called with any failure after ``parseError(_:)`` mapped it: on ``callbackQueue`` for a run started with
    /// ``start()``, in the awaiting task for ``ConnectionRequest/value()``. Default `nil`.
    public var failureHandler: (@Sendable (any Error) -> Void)? {
        get { storage.withLock { $0.failureHandler } }
        set { storage.withLock { $0.failureHandler = newValue } }
    }

    /// Called with upload and download progress (on ``callbackQueue`` for a run started with ``start()``, in
    /// the awaiting task for ``ConnectionRequest/value()``), at most every ``progressInterval`` per direction
    /// and once when each direction completes. Default `nil`.
    public var progressHandler: (@Sendable (TransferProgress) -> Void)? {
        get { storage.withLock { $0.progressHandler } }
        set { storage.withLock { $0.progressHandler = newValue } }
    }

    /// Where every handler runs. Default `.main`, as the original. A program without a main run
    /// loop or `dispatchMain()` (a plain command-line tool) must pick another queue, or use
    /// ``ConnectionRequest/value()``. On Linux under an `async` `main` or `dispatchMain()`, a worker thread
    /// serves the main queue: `Thread.isMainThread` is `false` in `.main` handlers there.
    ///
    /// Must be a serial queue: the request's handlers are submitted in order (each progress report, then
    /// the ending) and run as the queue runs them. A concurrent queue (`.global()`) is accepted, as
    /// libdispatch cannot tell it apart, but then one request's handlers may overlap and finish out of
    /// order: progress reports at once or out of order, a report after the ending. Exactly one ending still
    /// runs. See <doc:endpoints#A-concurrent-callback-queue>.
    public var callbackQueue: DispatchQueue {
        get { storage.withLock { $0.callbackQueue } }
        set { storage.withLock { $0.callbackQueue = newValue } }
    }

    // MARK: - Observing

    /// Where the request is in its lifecycle.
    public var state: ConnectionState { storage.withLock { $0.phase } }

    /// Identifies one run of the request: a new value on every ``start()``.
    public var identifier: UUID { storage.withLock { $0.identifier } }

    /// The last response of the current or last run (after redirects), if one arrived, as a Foundation
    /// `HTTPURLResponse`: built on the first read (costly on Linux, see ``ConnectionResponse``), then the same object.
    /// The hooks get the lighter ``ConnectionResponse``.
    public var urlResponse: HTTPURLResponse? { storage.withLock { $0.response }?.httpResponse }

    /// Where the last response of the current or last run came from: the network, or the class's
    /// ``httpCache`` (a hit, a `304`-revalidated response, or a stale one answered offline); `nil` until a
    /// response arrived. Read it in a handler to say "from the cache" or "may be out of date".
    public var responseSource: ResponseSource? { storage.withLock { $0.response?.source } }

    /// The last response of the current or last run, as the hooks see it, without its metrics.
    var responseHead: ConnectionResponse? {
        storage.withLock { $0.response }.map { ConnectionResponse($0, metrics: nil) }
    }

    /// When the current or last run started.
    public var dateStarted: Date? { storage.withLock { $0.dateStarted } }

    /// When the last run ended; `nil` while running.
    public var dateFinished: Date? { storage.withLock { $0.dateFinished } }

    /// Seconds from start to end (or to now while running); `nil` before the first start.
    public var duration: TimeInterval? {
        storage.withLock { state in
            state.dateStarted.map { (state.dateFinished ?? Date()).timeIntervalSince($0) }
        }
    }

    /// Whether the request is running.
    public var isActive: Bool { storage.withLock { $0.phase == .running } }

    /// The attempt in progress (or the last one), starting at 1; 0 before the first start.
    public var attempt: Int { storage.withLock { $0.attempt } }

    /// The class name, e.g. `FetchEvents`, as errors, logs and snapshots show it.
    public var typeName: String { TypeNames.name(of: type(of: self)) }

    /// One line for logs: class, identifier, method, redacted URL and state.
    open var debugDescription: String {
        let snapshot = makeSnapshot()
        return
            "<\(typeName) \(snapshot.identifier) \(snapshot.method) \(snapshot.redactedURL ?? "-") \(snapshot.state)>"
    }
}
