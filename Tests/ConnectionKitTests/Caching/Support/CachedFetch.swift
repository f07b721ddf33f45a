import ConnectionKit
import Foundation

/// A request of a class whose client has an HTTP cache, with the method, headers and policy a test sets.
class CachedFetch: FetchData, @unchecked Sendable {
    // Safe: only immutable stored properties.
    let ownClient: ConnectionClient
    let method: HTTPMethod
    let headers: [String: String]
    let policy: HTTPCachePolicy?

    init(
        _ target: URL, client: ConnectionClient, method: HTTPMethod = .get, headers: [String: String] = [:],
        policy: HTTPCachePolicy? = nil
    ) {
        self.ownClient = client
        self.method = method
        self.headers = headers
        self.policy = policy
        super.init(target)
    }

    override var client: ConnectionClient { ownClient }
    override var httpMethod: HTTPMethod { method }
    override var requestHeaderFields: [String: String] { headers }
    override var bodyData: Data? { method == .get || method == .head ? nil : Data("{}".utf8) }
    override var cachePolicy: HTTPCachePolicy { policy ?? super.cachePolicy }
}
