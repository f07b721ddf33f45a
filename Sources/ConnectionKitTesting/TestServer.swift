import Foundation

/// An in-process HTTP/1.1 server on 127.0.0.1 for tests: register routes, point the code under test at
/// ``baseURL``, then check what arrived with ``hits(_:)`` and ``receivedRequests(_:)``.
///
/// Each instance is independent (its own port, routes, counters and threads), so tests running in parallel can
/// each have one. Connections are kept alive between requests unless a request or response says
/// `Connection: close`, and each is served on its own thread. ``stop()`` ends every stall at once and returns
/// within a second; it also runs when the server is deallocated.
///
/// ```swift
/// let server = try TestServer.started()
/// defer { server.stop() }
/// server.route("GET", "/hello") { _ in .text("hi") }
/// ```
/// - SeeAlso: <doc:testing-server>
public final class TestServer: Sendable {
    // MARK: - Storage

    private let core = ServerCore()

    // MARK: - Lifecycle

    /// Creates a server that is not yet listening; call ``start()``. No routes are registered.
    public init() {}

    deinit {
        core.stop()
    }

    /// Creates a server and starts it.
    public static func started() throws -> TestServer {
        let server = TestServer()
        try server.start()
        return server
    }

    /// Binds 127.0.0.1 on a port the OS picks and starts accepting on a thread of its own.
    /// Throws ``TestServerError/alreadyRunning`` when running; after ``stop()`` it may start again on a new port.
    public func start() throws {
        try core.start()
    }

    /// Binds 127.0.0.1 on `port` and starts accepting, so that a client configured while the server was down
    /// (say, an offline queue pointed at ``url(_:)`` after ``stop()``) reaches it again at the same address.
    /// `port` 0 lets the OS pick, like ``start()``. Throws ``TestServerError/socketFailure(operation:errno:)``
    /// when the port is taken, ``TestServerError/alreadyRunning`` when running.
    public func start(port: Int) throws {
        try core.start(port: port)
    }

    /// Closes the listener and every open connection, ending all stalls and delays; waits briefly (under a
    /// second) for the server threads to finish. Idempotent; also called from `deinit`.
    public func stop() {
        core.stop()
    }

    // MARK: - Addresses

    /// The listening port; valid after ``start()``, 0 before the first start.
    public var port: Int {
        core.listener.port
    }

    /// `http://127.0.0.1:<port>`.
    public var baseURL: URL {
        let text = "http://127.0.0.1:\(port)"
        // A loopback literal with a numeric port always parses; the fallback only satisfies the type system.
        return URL(string: text) ?? URL(fileURLWithPath: text)
    }

    /// ``baseURL`` followed by `pathAndQuery`, with or without its leading slash, for example
    /// `server.url("/items?page=2")`. Characters a URL cannot hold are percent-encoded.
    public func url(_ pathAndQuery: String) -> URL {
        let suffix = pathAndQuery.hasPrefix("/") ? pathAndQuery : "/" + pathAndQuery
        let base = "http://127.0.0.1:\(port)"
        if let url = URL(string: base + suffix) { return url }
        var allowed = CharacterSet.urlQueryAllowed
        allowed.insert("%")
        let encoded = suffix.addingPercentEncoding(withAllowedCharacters: allowed) ?? suffix
        return URL(string: base + encoded) ?? baseURL
    }

    // MARK: - Routes

    /// Registers `handler` for requests whose path (without query) equals `path`.
    ///
    /// `method` `nil` (the default) matches any method; a route for the exact method wins over an any-method
    /// route. A later registration for the same method and path replaces the earlier one. Requests that
    /// match no route get 404 with the body `"no route"`. Handlers run on the connection's thread,
    /// concurrently for different connections, and never under the server's lock.
    public func route(
        _ method: String? = nil,
        _ path: String,
        _ handler: @escaping @Sendable (TestRequest) -> TestResponse
    ) {
        let key = RouteKey(method: method?.uppercased(), path: path)
        core.state.withLock { $0.routes[key] = handler }
    }

    /// Registers `handler` for `path` and any method: `server.route("/items") { _ in .text("ok") }`.
    ///
    /// Same as `route(nil, path, handler)`. It exists because Swift binds a lone unlabelled string to the
    /// first (defaulted) `method` parameter of ``route(_:_:_:)``, so that call would not compile.
    public func route(_ path: String, _ handler: @escaping @Sendable (TestRequest) -> TestResponse) {
        route(nil, path, handler)
    }

    /// From now on, request bodies for `path` are not stored: the server reads them as they arrive and keeps
    /// only a ``TestBodyDigest`` (length, checksum, first and last 64 KiB) in ``TestRequest/bodyDigest``;
    /// ``TestRequest/body`` stays empty. Use it for uploads too large to hold in memory. Default: bodies are stored.
    public func digestBodies(of path: String) {
        core.state.withLock { _ = $0.digestedPaths.insert(path) }
    }

    // MARK: - Observations

    /// How many requests for `path` (matched by a route or not) have been received since the start or the
    /// last ``resetCounters()``. A request counts as soon as it has been read, before its handler runs.
    public func hits(_ path: String) -> Int {
        core.state.withLock { $0.requestsByPath[path]?.count ?? 0 }
    }

    /// Waits until `path` has been requested at least `count` times (counting earlier hits), or until
    /// `timeout` seconds pass. Returns whether the count was reached. Lets a test act once a request is
    /// on the wire without sleeping. The default timeout is generous because it only bounds a failure:
    /// a loaded machine starting a whole test suite at once can take more than 10 s to put a request on
    /// the wire.
    public func waitForHits(_ path: String, count: Int = 1, timeout: TimeInterval = 30) async -> Bool {
        await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            core.waitForHits(path, count: count, timeout: timeout) { continuation.resume(returning: $0) }
        }
    }

    /// The requests received for `path`, in arrival order; empty when there were none.
    public func receivedRequests(_ path: String) -> [TestRequest] {
        core.state.withLock { $0.requestsByPath[path] ?? [] }
    }

    /// Forgets every recorded request, so all ``hits(_:)`` drop to 0. Routes and connection counts stay.
    public func resetCounters() {
        core.state.withLock { $0.requestsByPath = [:] }
    }

    /// Client connections open right now.
    public var openConnectionCount: Int {
        core.listener.openConnections
    }

    /// Connections accepted since the server was created (across restarts), which shows keep-alive reuse:
    /// two requests over one kept-alive connection leave it at 1.
    public var acceptedConnectionCount: Int {
        core.listener.acceptedConnections
    }
}
