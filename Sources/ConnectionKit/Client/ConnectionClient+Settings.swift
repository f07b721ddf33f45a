import Foundation

extension ConnectionClient {
    /// What every request of a client uses unless its class says otherwise: what an app superclass carries,
    /// given once to the client, so that a JSON endpoint, a `Data` endpoint, a download and a stream on one
    /// client share it without a common superclass.
    ///
    /// Each setting is read by the default implementation of the matching hook of
    /// ``AnyConnectionRequest``; a class that overrides the hook decides alone (call `super` to fall back on
    /// the client's value). A request's ``AnyConnectionRequest/instanceSettings`` win over the client's.
    ///
    /// | setting | hook that reads it | when `nil` or empty |
    /// |---|---|---|
    /// | ``baseURL`` | ``AnyConnectionRequest/baseURL`` | no base: the class gives a whole URL |
    /// | ``headerFields`` | ``AnyConnectionRequest/defaultHeaderFields`` | none |
    /// | ``authorization`` | ``AnyConnectionRequest/authorization`` | none |
    /// | ``authorizationRefresher`` | ``AnyConnectionRequest/authorizationRefresher`` | a `401` fails |
    /// | ``mapError`` | ``AnyConnectionRequest/parseError(_:)`` | the error unchanged |
    /// | ``retryPolicy`` | ``AnyConnectionRequest/retryPolicy`` | ``RetryPolicy/none`` |
    /// | ``timeoutInterval`` | ``AnyConnectionRequest/timeoutInterval`` | 60 seconds |
    public struct Settings: Sendable {
        /// The URL a class's ``AnyConnectionRequest/path`` and query are appended to.
        public var baseURL: URL?
        /// Header fields sent with every request, under the class's ``AnyConnectionRequest/requestHeaderFields``.
        public var headerFields: [String: String]
        /// The `Authorization` every request sends (unless it sets the field itself).
        public var authorization: Authorization?
        /// Renews the credential after a `401` (one refresh shared by the client's concurrent requests).
        public var authorizationRefresher: AuthorizationRefresher?
        /// Turns a failure into the error the failure handler and `value()` get (an API's error body into the
        /// app's error type).
        public var mapError: (@Sendable (ConnectionError) -> any Error)?
        /// When a failed attempt is retried.
        public var retryPolicy: RetryPolicy?
        /// Seconds without a byte before an attempt times out.
        public var timeoutInterval: TimeInterval?

        /// Settings with the values given; each one left out keeps its hook's default.
        public init(
            baseURL: URL? = nil, headerFields: [String: String] = [:], authorization: Authorization? = nil,
            authorizationRefresher: AuthorizationRefresher? = nil,
            mapError: (@Sendable (ConnectionError) -> any Error)? = nil, retryPolicy: RetryPolicy? = nil,
            timeoutInterval: TimeInterval? = nil
        ) {
            self.baseURL = baseURL
            self.headerFields = headerFields
            self.authorization = authorization
            self.authorizationRefresher = authorizationRefresher
            self.mapError = mapError
            self.retryPolicy = retryPolicy
            self.timeoutInterval = timeoutInterval
        }
    }

    /// The stages every request of this client goes through, first to last: the client's middleware, then
    /// the built-in stages, then the transport — for example
    /// `["TraceContextMiddleware", "authorization", "cookies", "cache", "transport (libcurl)"]`. A class's own
    /// middleware (``AnyConnectionRequest/middleware``) comes after the client's.
    public var pipelineDescription: [String] {
        middleware.map(\.name) + ["authorization", "cookies", "cache", "transport (\(transport.name))"]
    }
}
