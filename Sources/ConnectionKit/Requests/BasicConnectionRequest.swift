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
    /// ``AnyConnectionRequest/timeoutInterval`` and ``AnyConnectionRequest/authorization`` still apply.
    public var request: URLRequest? {
        get { oneOffRequest.withLock { $0 } }
        set { oneOffRequest.withLock { $0 = newValue } }
    }

    /// The URL of ``request``.
    open override var url: URL? { request?.url }

    /// Returns ``request``.
    open override func makeURLRequest() throws -> URLRequest {
        guard let request else {
            throw ConnectionError(
                .invalidRequest(reason: "\(Self.self) has no request. Set `request` before starting."))
        }
        return request
    }
}
