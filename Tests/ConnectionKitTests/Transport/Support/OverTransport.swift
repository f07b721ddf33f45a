import ConnectionKit
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A GET (or a `method` request carrying `body`) over the transport it is given, whatever
/// CONNECTIONKIT_TEST_TRANSPORT says: the one endpoint of the transport tests.
final class OverTransport: ConnectionRequest<Data>, @unchecked Sendable {
    // Safe: only immutable stored properties.
    let target: URL
    let payload: Data?
    let bodyMethod: HTTPMethod
    let chosen: ConnectionTransport
    let debugOutput: Bool?

    init(
        _ target: URL, body: Data? = nil, method: HTTPMethod = .post, over transport: ConnectionTransport,
        debugOutput: Bool? = nil
    ) {
        self.target = target
        self.payload = body
        self.bodyMethod = method
        self.chosen = transport
        self.debugOutput = debugOutput
    }

    override var url: URL? { target }
    override var httpMethod: HTTPMethod { payload == nil ? .get : bodyMethod }
    override var bodyData: Data? { payload }
    override var requestHeaderFields: [String: String] {
        payload == nil ? [:] : ["Content-Type": "application/octet-stream"]
    }
    override var transport: ConnectionTransport { chosen }
    override var isDebugOutputEnabled: Bool? { debugOutput }
}
