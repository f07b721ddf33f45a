import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A one-off request without subclassing: set ``request`` and start it. Its output is the body.
///
/// ```swift
/// let basic = BasicConnectionRequest(request: URLRequest(url: URL(string: "https://example.com")!))
/// basic.completionHandler = { data in print(data.count) }
/// basic.start()
/// ```
/// - SeeAlso: <doc:endpoints>
open class BasicConnectionRequest: ConnectionRequest<Data>, @unchecked Sendable {
    // Safe: `request` lives behind its own lock; the rest in the base class's locked storage.
    private let oneOffRequest = Locked<URLRequest?>(nil)
    private let oneOffBody = Locked<StreamedBody?>(nil)

    /// Creates a request; set ``request`` before starting.
    public override init() {
        super.init()
    }

    /// Creates a request that sends `request`.
    public init(request: URLRequest) {
        super.init()
        self.request = request
    }

    /// The request to send. Default `nil`: starting without one fails with `invalidRequest`.
    /// ``AnyConnectionRequest/timeoutInterval`` and ``AnyConnectionRequest/authorization`` still apply: the
    /// request's own `timeoutInterval` is replaced by the hook's (set it with
    /// ``AnyConnectionRequest/instanceSettings``).
    public var request: URLRequest? {
        get { oneOffRequest.withLock { $0 } }
        set { oneOffRequest.withLock { $0 = newValue } }
    }

    /// Creates a request that sends `request` with `body`, streamed from its sequence as it is sent (see
    /// ``StreamedBody``): `request`'s method must allow a body (`POST`, `PUT`…).
    public init(request: URLRequest, streamedBody body: StreamedBody) {
        super.init()
        self.request = request
        self.streamedBody = body
    }

    /// A body streamed from an `AsyncSequence` as it is sent, in place of ``request``'s own body. Default `nil`.
    /// Its `Content-Type` is sent unless ``request`` has one. Sent by the libcurl transport only: run the
    /// request on a client made with `ConnectionClient(transport: .libcurl())` (``ConnectionRequest/value(on:)``).
    public var streamedBody: StreamedBody? {
        get { oneOffBody.withLock { $0 } }
        set { oneOffBody.withLock { $0 = newValue } }
    }

    /// The URL of ``request``.
    open override var url: URL? { request?.url }

    /// Returns ``request``, with ``AnyConnectionRequest/requestHeaderFields`` set on it (each replacing the
    /// request's value of the same name): `[:]` unless overridden or set in
    /// ``AnyConnectionRequest/instanceSettings``.
    open override func makeURLRequest() throws -> URLRequest {
        guard var request else {
            throw ConnectionError(
                .invalidRequest(reason: "\(Self.self) has no request. Set `request` before starting."))
        }
        for (name, value) in requestHeaderFields {
            request.setValue(value, forHTTPHeaderField: name)
        }
        if let streamedBody { try applyStreamedBody(streamedBody, to: &request) }
        return request
    }
}
