import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The request an ``OfflineQueue`` sends for a ``QueuedOperation``: the stored method, URL, headers and body,
/// the `Idempotency-Key`, and, from the registered request class, its ``AnyConnectionRequest/authorization``
/// and the secret headers and query items that were not stored. It goes through the normal lifecycle, so
/// it shows in ``ConnectionRegistry`` (snapshots, events) while it is being sent.
///
/// The queue creates these; an app only meets them in the registry, e.g.
/// `ConnectionRegistry.shared.requests(of: QueuedOperationRequest.self)`.
public final class QueuedOperationRequest: ConnectionRequest<Data>, @unchecked Sendable {
    // Safe: every stored property is an immutable `let` of a Sendable type; the base class guards the rest.

    /// The operation being delivered.
    public let operation: QueuedOperation
    /// An instance of the operation's request class, asked for credentials and settings at send time.
    let template: AnyConnectionRequest
    /// Read from the operation's file (or body file) just before the attempt.
    let body: Data?

    init(operation: QueuedOperation, template: AnyConnectionRequest, body: Data?) {
        self.operation = operation
        self.template = template
        self.body = body
        super.init()
    }

    /// The operation's URL, with the class's secret query items filled in again from its ``url``.
    public override var url: URL? {
        guard !operation.removedSecretQueryItemNames.isEmpty,
            var components = URLComponents(url: operation.url, resolvingAgainstBaseURL: false)
        else { return operation.url }
        let secrets = template.url.flatMap { URLComponents(url: $0, resolvingAgainstBaseURL: false)?.queryItems } ?? []
        var items = components.queryItems ?? []
        for name in operation.removedSecretQueryItemNames {
            if let item = secrets.first(where: { $0.name.lowercased() == name.lowercased() }) {
                items.append(item)
            }
        }
        components.queryItems = items
        return components.url ?? operation.url
    }

    /// The operation's method.
    public override var httpMethod: HTTPMethod { HTTPMethod(operation.method) }

    /// The stored headers, the `Idempotency-Key`, and the secret headers the class provides now.
    public override var requestHeaderFields: [String: String] {
        var fields = operation.headerFields
        if !operation.removedSecretHeaderNames.isEmpty {
            let current = template.requestHeaderFields
            for name in operation.removedSecretHeaderNames {
                if let pair = current.first(where: { $0.key.lowercased() == name.lowercased() }) {
                    fields[pair.key] = pair.value
                }
            }
        }
        fields["Idempotency-Key"] = operation.idempotencyKey
        return fields
    }

    /// The class's client: a delivery is its owner's request (its registry, history and statistics), as the
    /// class's own requests are.
    public override var client: ConnectionClient { template.client }
    /// The class's transport.
    public override var transport: ConnectionTransport { template.transport }
    /// The class's ``AnyConnectionRequest/authorization``, read at send time.
    public override var authorization: Authorization? { template.authorization }
    /// The class's timeout.
    public override var timeoutInterval: TimeInterval { template.timeoutInterval }
    /// The class's secret headers (redacted in snapshots and logs).
    public override var secretHeaderFields: Set<String> { template.secretHeaderFields }
    /// The class's secret query items.
    public override var secretQueryItems: Set<String> { template.secretQueryItems }
    /// The class's cookie jar: the stored operation holds no cookie; the jar supplies them at send time.
    public override var cookieJar: CookieJar? { template.cookieJar }
    /// The class's redirect setting.
    public override var followsRedirects: Bool { template.followsRedirects }
    /// The class's redirect limit.
    public override var maximumRedirects: Int { template.maximumRedirects }
    /// Always ``RetryPolicy/none``: the queue does the retrying, at its own intervals.
    public override var retryPolicy: RetryPolicy { .none }

    /// Names the operation's own class in errors, not this one.
    public override func parseError(_ error: ConnectionError) -> any Error {
        var error = error
        error.requestTypeName = operation.typeName
        return error
    }

    /// The operation's body.
    public override var bodyData: Data? { body }

    /// Builds the request from the stored values.
    public override func makeURLRequest() throws -> URLRequest {
        guard let url else {
            throw ConnectionError(.invalidRequest(reason: "queued operation \(operation.id) has no URL"))
        }
        var request = URLRequest(url: url)
        request.httpMethod = operation.method
        for (name, value) in requestHeaderFields {
            request.setValue(value, forHTTPHeaderField: name)
        }
        request.httpBody = body
        return request
    }
}
