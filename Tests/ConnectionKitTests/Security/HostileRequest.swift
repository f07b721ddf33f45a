import ConnectionKit
import ConnectionKitTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Every hook whose value becomes bytes on the wire (or text in an error), set at init: what an app
/// would build from user data, here filled with hostile values.
struct HostileHooks: Sendable {
    var url: URL?
    var method: HTTPMethod = .get
    var headers: [String: String] = [:]
    var defaultHeaders: [String: String] = [:]
    var authorization: Authorization?
    var body: RequestBody?
    var secretHeaders: Set<String> = []
    var secretQuery: Set<String> = []
    var debugOutput = false
}

/// A request whose hooks return the values of a ``HostileHooks``.
final class HostileRequest: ConnectionRequest<Data>, @unchecked Sendable {
    // Safe: `hooks` is immutable after init; the rest lives in the base class's locked storage.
    let hooks: HostileHooks

    init(_ hooks: HostileHooks) {
        self.hooks = hooks
        super.init()
    }

    override var url: URL? { hooks.url }
    override var httpMethod: HTTPMethod { hooks.method }
    override var requestHeaderFields: [String: String] { hooks.headers }
    override var defaultHeaderFields: [String: String] { hooks.defaultHeaders }
    override var authorization: Authorization? { hooks.authorization }
    override var requestBody: RequestBody? { hooks.body }
    override var secretHeaderFields: Set<String> { hooks.secretHeaders }
    override var secretQueryItems: Set<String> { hooks.secretQuery }
    override var isDebugOutputEnabled: Bool? { hooks.debugOutput }
    // Only bounds a failure (no test here expects a timeout): the libcurl pass beside stress-ng once saw
    // a loopback echo stay quiet for more than 10 s.
    override var timeoutInterval: TimeInterval { 60 }
}

/// Starts `request` and returns its one failure; records an issue when it succeeded.
func failure(of request: HostileRequest, sourceLocation: SourceLocation = #_sourceLocation) async throws
    -> ConnectionError
{
    let endings = Endings(request)
    request.start()
    let error = try await endings.connectionError(sourceLocation: sourceLocation)
    await endings.queue.drain()
    #expect(endings.count == 1, "exactly one ending", sourceLocation: sourceLocation)
    return error
}

/// The reason of an `invalidRequest` error; records an issue for any other kind.
func invalidRequestReason(_ error: ConnectionError, sourceLocation: SourceLocation = #_sourceLocation) -> String {
    guard let reason = error.reason else {
        Issue.record("expected invalidRequest, got \(error.debugDescription)", sourceLocation: sourceLocation)
        return ""
    }
    return reason
}

/// Every way a `ConnectionError` can be shown to a user or a log.
func everyRendering(of error: ConnectionError) -> [String] {
    [
        error.localizedDescription, error.description, error.debugDescription, String(describing: error),
        String(reflecting: error), "\(error)", error.redactedURL ?? "",
    ]
}
