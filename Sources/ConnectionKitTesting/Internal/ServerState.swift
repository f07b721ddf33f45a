/// Everything mutable about a ``TestServer``, kept behind its one lock.
struct ServerState: Sendable {
    /// Registered handlers.
    var routes: [RouteKey: @Sendable (TestRequest) -> TestResponse] = [:]
    /// Every parsed request, by path, in arrival order; `hits` is the count.
    var requestsByPath: [String: [TestRequest]] = [:]
    /// Client connections currently open.
    var openConnections = 0
    /// Connections accepted since the server was created; also the id of the newest one.
    var acceptedConnections = 0
    /// The port of the current (or last) listener; 0 before the first start.
    var port = 0
    /// The running listener, `nil` when stopped.
    var run: ServerRun?
}
