import ConnectionKit
import Foundation
import HTTPServerCore

/// A web page and JSON endpoints that show what one client's `ConnectionRegistry` knows (the shared
/// client's by default): live requests, the history with a timing waterfall, per-class statistics, a
/// HAR download, and Prometheus metrics at `/metrics`.
///
/// Off unless started. It listens on 127.0.0.1 only, and every request must carry the random
/// 128-bit token that ``start(port:)`` puts in the URL it returns; the `Host` header must name the
/// loopback address or `localhost`; cancelling takes a POST with the token in a header from the
/// page's own origin. Everything it serves is redacted as snapshots are. A slow or stuck browser
/// never slows requests: each page's event queue is bounded and drops updates (the page then
/// reloads the list).
///
/// ```swift
/// let inspector = ConnectionInspector()
/// let url = try inspector.start()
/// print("Inspector: \(url)")
/// ```
public final class ConnectionInspector: Sendable {
    /// Connections served at once (each has sent a whole request head); more are refused. 32.
    public static let maximumConnections = 32
    /// Connections that have not yet sent a whole request head, held at once without a thread; one more
    /// closes the one that has waited longest, so idle or slow sockets cannot keep a page out. 128.
    public static let maximumWaitingConnections = 128
    /// Pages following live events at once; more get 503. 8.
    public static let maximumEventStreams = 8
    /// The most bytes of a request head, counting empty lines before it; more is answered with 431 and
    /// the connection closed. 64 KiB.
    public static let maximumHeadBytes = 64 * 1024
    /// The most header lines of a request (folded continuation lines count); more is answered with 431.
    /// 100.
    public static let maximumHeaderLines = 100
    /// Seconds a request (head and body) may take to arrive, counted from when the connection opens or
    /// starts waiting for its next request; then the connection is closed. 10.
    public static let requestTimeout: TimeInterval = 10
    /// Events queued per page before updates are dropped. 1,024.
    public static let eventQueueLimit = 1024

    private let server: InspectorServer

    /// Creates an inspector of `ConnectionRegistry.shared`; it serves nothing until ``start(port:)``.
    public init() {
        server = InspectorServer(registry: .shared)
    }

    /// Creates an inspector of `client`'s requests, history and statistics only; it serves nothing until
    /// ``start(port:)``. Its threads are the inspector's own: ``stop()`` ends them, not the client's shutdown.
    public init(client: ConnectionClient) {
        server = InspectorServer(registry: client.registry)
    }

    deinit {
        server.stop()
    }

    /// Starts serving on 127.0.0.1 at `port` (default 0: a port the OS picks) and returns the URL to
    /// open, e.g. `http://127.0.0.1:49152/?token=…`. When already started, returns the same URL.
    /// Throws `ConnectionError` (kind `other`, wrapping a `POSIXError`) when the port cannot be bound.
    @discardableResult
    public func start(port: Int = 0) throws -> URL {
        try server.start(port: port)
    }

    /// The URL to open (with its token) while started; `nil` when stopped.
    public var url: URL? {
        server.url
    }

    /// Stops serving and closes every connection; a later ``start(port:)`` makes a new token.
    /// Idempotent; also runs when the inspector is released.
    public func stop() {
        server.stop()
    }
}
