import ConnectionKit
import Foundation
import HTTPServerCore

/// A web page and JSON endpoints that show what the process's `ConnectionRegistry` knows: live
/// requests, the history with a timing waterfall, per-class statistics, a HAR download, and
/// Prometheus metrics at `/metrics`.
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
    /// Connections open at once. 32. One more closes the open connection that has waited longest for
    /// a request (idle sockets cannot lock a page out); it is refused only when all 32 are being answered.
    public static let maximumConnections = 32
    /// Pages following live events at once; more get 503. 8.
    public static let maximumEventStreams = 8
    /// The most bytes of a request head, counting empty lines before it; more is answered with 431 and
    /// the connection closed. 64 KiB.
    public static let maximumHeadBytes = 64 * 1024
    /// The most header lines of a request (folded continuation lines count); more is answered with 431.
    /// 100.
    public static let maximumHeaderLines = 100
    /// Seconds a request (head and body) may take to arrive, counted from when the connection starts
    /// waiting for it; then the connection is closed. 10.
    public static let requestTimeout: TimeInterval = 10
    /// Events queued per page before updates are dropped. 1,024.
    public static let eventQueueLimit = 1024

    private let server: InspectorServer

    /// Creates an inspector of `ConnectionRegistry.shared`; it serves nothing until ``start(port:)``.
    public init() {
        server = InspectorServer(registry: .shared)
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
