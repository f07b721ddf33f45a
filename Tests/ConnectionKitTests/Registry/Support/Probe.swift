import ConnectionKit
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A request to a fixed URL whose output is the body. Its subclasses below exist so that the
/// registry tests can match by class without seeing other suites' requests.
class Probe: ConnectionRequest<Data>, @unchecked Sendable {
    // Safe: every stored property is a `let` set in init.
    let target: URL
    let method: HTTPMethod
    let headers: [String: String]
    let body: Data?
    let credentials: Authorization?

    init(
        _ target: URL, method: HTTPMethod = .get, headers: [String: String] = [:], body: Data? = nil,
        authorization: Authorization? = nil, queue: DispatchQueue = Probe.queue
    ) {
        self.target = target
        self.method = method
        self.headers = headers
        self.body = body
        self.credentials = authorization
        super.init()
        callbackQueue = queue
    }

    static let queue = DispatchQueue(label: "RegistryTests.callbacks", attributes: .concurrent)

    override var url: URL? { target }
    override var httpMethod: HTTPMethod { method }
    override var requestHeaderFields: [String: String] { headers }
    override var bodyData: Data? { body }
    override var authorization: Authorization? { credentials }
}
