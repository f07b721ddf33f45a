import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A stage of a client's pipeline that you write: it sees every attempt of every request it is given to,
/// between the request class (which builds, validates and parses) and the built-in stages (authorization,
/// cookies, the HTTP cache, the transport).
///
/// Give middleware to a client (`ConnectionClient(middleware: [...])`, every request of the client) or to a
/// class (``AnyConnectionRequest/middleware``, that class's requests, after the client's). Each method has a
/// default that does nothing, so a middleware implements only what it needs:
///
/// | method | when | may |
/// |---|---|---|
/// | ``runStarted(_:)`` | a run starts, in the caller's task | return a value kept for the run |
/// | ``prepare(_:context:)`` | each attempt, in list order | change the request (headers, URL, body) |
/// | ``answer(for:context:)`` | right after its own `prepare` | answer without the network |
/// | ``received(_:context:)`` | each attempt's answer from below, in reverse order | look (log, record, measure) |
/// | ``retryDecision(for:attempt:response:context:)`` | an attempt failed, in list order | decide the retry |
///
/// The methods are synchronous and run on the thread that drives the run: a middleware adds no thread
/// crossing, and must not block. One that throws ends the run with ``ConnectionError/Kind/middleware`` naming
/// it; a request it leaves invalid, or an answer that is not a valid response, is refused the same way. A
/// middleware sees one request per attempt: redirects are followed below it, and it receives the answer of
/// the last hop.
public protocol ConnectionMiddleware: Sendable {
    /// The name errors and ``ConnectionClient/pipelineDescription`` show. Default: the type's name.
    var name: String { get }

    /// A run of a request this middleware serves starts: return a value to keep for the run (a trace parent
    /// read from a task-local, a start time), handed back as ``MiddlewareContext/runValue``. Runs in the task
    /// or on the thread that called `start()` or `value()`, so task-locals are readable. Default `nil`.
    func runStarted(_ request: AnyConnectionRequest) -> (any Sendable)?

    /// Changes the request of an attempt before the stages after it see it. Default: leaves it unchanged.
    func prepare(_ request: inout URLRequest, context: MiddlewareContext) throws

    /// Answers the attempt without the stages after it (nor the network): return the response, or `nil` to
    /// pass the request on. Asked right after this middleware's ``prepare(_:context:)``. The answer goes
    /// through the middleware before this one (``received(_:context:)``), then the request's validation and
    /// parsing, as any response. Default `nil`.
    func answer(for request: URLRequest, context: MiddlewareContext) throws -> MiddlewareAnswer?

    /// The outcome of an attempt as the stages after this one produced it: a response with its body (before
    /// the request's validation), or a failure. Called in reverse list order. Default: nothing.
    func received(_ outcome: MiddlewareOutcome, context: MiddlewareContext)

    /// An attempt failed: return a decision to settle whether the run tries again, or `nil` to leave it to
    /// the next middleware and, when none decides, to the request's
    /// ``AnyConnectionRequest/retryDecision(for:attempt:response:)``. The retry policy's deadline still
    /// applies. Default `nil`.
    func retryDecision(
        for error: ConnectionError, attempt: Int, response: ConnectionResponse?, context: MiddlewareContext
    ) -> RetryDecision?
}

extension ConnectionMiddleware {
    /// The type's name.
    public var name: String { String(describing: Self.self) }

    /// No value for the run.
    public func runStarted(_ request: AnyConnectionRequest) -> (any Sendable)? { nil }

    /// Leaves the request unchanged.
    public func prepare(_ request: inout URLRequest, context: MiddlewareContext) throws {}

    /// Passes the request on.
    public func answer(for request: URLRequest, context: MiddlewareContext) throws -> MiddlewareAnswer? { nil }

    /// Does nothing.
    public func received(_ outcome: MiddlewareOutcome, context: MiddlewareContext) {}

    /// Leaves the decision to the others.
    public func retryDecision(
        for error: ConnectionError, attempt: Int, response: ConnectionResponse?, context: MiddlewareContext
    ) -> RetryDecision? { nil }
}

/// What a middleware knows of the attempt it is called for.
public struct MiddlewareContext: Sendable {
    /// The request object (the endpoint's instance) whose run this is.
    public let request: AnyConnectionRequest
    /// The client the run is on.
    public let client: ConnectionClient
    /// The run's identifier, as the registry and the history show it.
    public let runIdentifier: UUID
    /// The attempt's number, from 1.
    public let attempt: Int
    /// What this middleware's ``ConnectionMiddleware/runStarted(_:)`` returned for the run.
    public let runValue: (any Sendable)?
}

/// A response a middleware gives instead of the network's (a mock, a replay).
public struct MiddlewareAnswer: Sendable {
    /// The status code, 100 to 999.
    public var statusCode: Int
    /// The header fields, in order; a name may repeat.
    public var headerFields: [(name: String, value: String)]
    /// The body.
    public var body: Data

    /// An answer with `statusCode`, `headerFields` and `body`.
    public init(statusCode: Int, headerFields: [(name: String, value: String)] = [], body: Data = Data()) {
        self.statusCode = statusCode
        self.headerFields = headerFields
        self.body = body
    }
}

/// The outcome of an attempt, as a middleware receives it (``ConnectionMiddleware/received(_:context:)``).
public enum MiddlewareOutcome: Sendable {
    /// A response arrived whole. `body` is `nil` when the request saves it to a file or streams it.
    case response(ConnectionResponse, body: Data?)
    /// The attempt failed before a whole response arrived (a transport error, a timeout, a size limit), or a
    /// stage after this middleware failed it; `response` is its head when one arrived.
    case failure(ConnectionError, response: ConnectionResponse?)
}
