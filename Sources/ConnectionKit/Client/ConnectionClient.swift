import Dispatch
import Foundation

/// What owns requests: their registry, history and statistics, activity signal, timers, queues and
/// transports (compare async-http-client's `HTTPClient` or Alamofire's `Session`).
///
/// Every request belongs to the client its class's ``AnyConnectionRequest/client`` hook returns,
/// ``shared`` by default, so code that never names a client keeps working as before:
/// `ConnectionRegistry.shared`, `NetworkActivity.shared` and ``ConnectionTransport/default`` are the
/// shared client's parts. A client of your own keeps its requests apart from every other client's (a
/// service with two APIs, each test of a suite) and can be shut down: see ``shutdown(gracePeriod:)``.
///
/// ```swift
/// enum Billing {
///     static let client = ConnectionClient(label: "billing")
/// }
///
/// class BillingRequest<Output: Sendable>: ConnectionRequest<Output>, @unchecked Sendable {
///     override var client: ConnectionClient { Billing.client }
/// }
///
/// await Billing.client.shutdown()  // on SIGTERM: drains, then stops its threads
/// ```
/// - SeeAlso: <doc:client>
public final class ConnectionClient: Sendable, CustomStringConvertible {
    /// The transport a client of its own creates for itself.
    public enum TransportChoice: Sendable {
        /// A URLSession of the client's own (two: one for bodies kept in memory, one for bodies saved
        /// to a file).
        case urlSession
        /// libcurl event loops of the client's own (two threads, named after ``threadNamePrefix``);
        /// Linux only. Also spelled `.libcurl()`, as ``ConnectionTransport/libcurl()`` is.
        case libcurl

        /// The same as ``libcurl``: `ConnectionClient(transport: .libcurl(), label: "billing")` reads as
        /// `ConnectionTransport.default = try .libcurl()` does.
        public static func libcurl() -> TransportChoice { .libcurl }
    }

    /// Where the ending of a run started with ``AnyConnectionRequest/start()`` is delivered
    /// (``ConnectionRequest/handleResultObject(_:)`` or ``AnyConnectionRequest/handleConnectionError(_:)``,
    /// and the handler either calls). A run awaited with ``ConnectionRequest/value()`` always ends in the
    /// awaiting task, whatever the delivery. See <doc:handlers-and-async#Where-your-code-runs>.
    public enum Delivery: Sendable, Equatable {
        /// On the request's ``AnyConnectionRequest/callbackQueue`` (`.main` unless set), as the original:
        /// for handlers that touch the user interface.
        case callbackQueue
        /// On the processing-queue thread that parsed the response, without crossing to `callbackQueue`.
        /// Never on a transport's thread, nor inside `start()` or `cancel()`: an ending that happens there (a
        /// cancel, a timeout, a failure before any transfer) still goes to `callbackQueue`, as does every
        /// ending of a request with a ``AnyConnectionRequest/progressHandler`` or of a
        /// ``StreamingConnectionRequest``, whose earlier events wait there and must come first.
        case immediate
    }

    /// The client of every request whose class does not override ``AnyConnectionRequest/client``. Its
    /// registry is `ConnectionRegistry.shared`, its activity `NetworkActivity.shared`, and its transport
    /// ``ConnectionTransport/default``. It can be shut down too, once, at the end of a process (see
    /// ``shutdown(gracePeriod:)``).
    public static let shared = ConnectionClient(processParts: ())

    /// The live requests, history and statistics of this client's requests, and their event streams.
    public let registry: ConnectionRegistry

    /// Whether any request of this client is live, for an activity indicator.
    public let activity: NetworkActivity

    /// A name for logs and for this client's threads: `"shared"`, or the label given to `init`.
    public let label: String

    /// What this client's threads are named with (Linux shows at most 15 bytes of a thread's name):
    /// `CK<number>.`, e.g. `CK3.curl` and `CK3.curl.file` for the libcurl loops of the third client
    /// created (`CK0.` for ``shared``).
    public let threadNamePrefix: String

    /// The cookie jar of this client's requests (RFC 6265), given to `init`; `nil` (the default, and
    /// always for ``shared``) keeps no cookies. A class's ``AnyConnectionRequest/cookieJar`` hook returns
    /// it unless overridden. See <doc:client-and-authorization#Session-cookies-a-cookie-jar>.
    public let cookieJar: CookieJar?

    /// The HTTP cache of this client's requests (RFC 9111), given to `init`; `nil` (the default, and always
    /// for ``shared``) caches nothing. A class's ``AnyConnectionRequest/httpCache`` hook returns it unless
    /// overridden, and its ``AnyConnectionRequest/cachePolicy`` says how it is used. See <doc:caching>.
    public let httpCache: HTTPCache?

    /// Where the ending of each of this client's runs started with `start()` is delivered, given to `init`:
    /// ``Delivery/callbackQueue`` (the default, and always for ``shared``) or ``Delivery/immediate``.
    public let delivery: Delivery
    /// What every request of this client uses unless its class says otherwise: base URL, default header
    /// fields, authorization, error mapping, retry policy, timeout. Empty for ``shared``.
    public let settings: Settings
    /// The middleware every request of this client goes through, first to last, before its class's own
    /// (``AnyConnectionRequest/middleware``) and the built-in stages. Empty for ``shared``.
    public let middleware: [any ConnectionMiddleware]

    /// The requests' observers, in the order they hear an event (see `RequestObserver`).
    let observers: [any RequestObserver]
    /// Every request's idle timeout, retry backoff and deadline.
    let timers: SharedTimers
    /// Validation, parsing and the work that must leave a transport's thread.
    let processingQueue: DispatchQueue
    /// Runs the jobs of a task that awaits one of this client's runs (``ProcessingExecutor``).
    let processingExecutor: ProcessingExecutor
    /// The client's own transport; `nil` for ``shared``, which follows ``ConnectionTransport/default``.
    private let ownTransport: ConnectionTransport?
    /// Stops the client's transports and waits for their threads to end.
    private let stopTransports: @Sendable () -> Void
    /// The kernel ids of the threads the client's transports started (its libcurl loops).
    private let transportThreadIDs: @Sendable () -> [Int32]
    let shutdownState = Locked(ShutdownState())

    /// The shared client: the process's transports and queues.
    private init(processParts: Void) {
        self.label = "shared"
        self.threadNamePrefix = "CK0."
        self.cookieJar = nil
        self.httpCache = nil
        self.delivery = .callbackQueue
        self.settings = Settings()
        self.middleware = []
        let (registry, activity) = (ConnectionRegistry(), NetworkActivity())
        self.registry = registry
        self.activity = activity
        self.timers = SharedTimers.shared
        self.processingQueue = ConnectionQueues.processing
        self.processingExecutor = ProcessingExecutor(queue: ConnectionQueues.processing)
        self.ownTransport = nil
        self.stopTransports = { Self.stopProcessTransports() }
        self.transportThreadIDs = { [] }
        self.observers = Self.observers(registry: registry, activity: activity)
    }

    /// A client with a URLSession transport of its own, and `cookieJar` and `httpCache` (when given) for
    /// its requests, whose endings are delivered as `delivery` says.
    public convenience init(
        label: String? = nil, cookieJar: CookieJar? = nil, httpCache: HTTPCache? = nil,
        delivery: Delivery = .callbackQueue, settings: Settings = Settings(),
        middleware: [any ConnectionMiddleware] = []
    ) {
        self.init(
            transport: .urlSession, label: label, cookieJar: cookieJar, httpCache: httpCache, delivery: delivery,
            settings: settings, middleware: middleware)
    }

    /// A client with a transport of its own: `.urlSession` or `.libcurl()`, and `cookieJar` and `httpCache`
    /// (when given) for its requests, whose endings are delivered as `delivery` says.
    ///
    /// Never throws, so that a client is declared where clients live (`static let client = ...`). Where
    /// libcurl is asked for and cannot run (it cannot be loaded, is too old, or the platform is not Linux),
    /// the client is created all the same and each of its requests fails, with nothing sent, with
    /// ``ConnectionError/Kind/transportUnavailable`` carrying the reason (``ConnectionError/reason``). To
    /// learn it at once instead, create the client with ``init(checking:label:cookieJar:httpCache:delivery:settings:middleware:)``.
    public convenience init(
        transport: TransportChoice, label: String? = nil, cookieJar: CookieJar? = nil, httpCache: HTTPCache? = nil,
        delivery: Delivery = .callbackQueue, settings: Settings = Settings(),
        middleware: [any ConnectionMiddleware] = []
    ) {
        let parts = Self.numbered(label)
        self.init(
            parts: parts, made: Self.makeOwnTransport(transport, threadNamePrefix: parts.prefix),
            features: Features(
                cookieJar: cookieJar, httpCache: httpCache, delivery: delivery, settings: settings,
                middleware: middleware))
    }

    /// The same client as ``init(transport:label:cookieJar:httpCache:delivery:settings:middleware:)``, but one that throws when
    /// its transport cannot run, for a program that would rather stop at once (or fall back to `.urlSession`).
    /// - Throws: ``ConnectionTransport/UnavailableError`` when `.libcurl()` is asked for and libcurl
    ///   cannot be loaded or is too old, or on platforms other than Linux.
    public convenience init(
        checking transport: TransportChoice, label: String? = nil, cookieJar: CookieJar? = nil,
        httpCache: HTTPCache? = nil, delivery: Delivery = .callbackQueue, settings: Settings = Settings(),
        middleware: [any ConnectionMiddleware] = []
    ) throws(ConnectionTransport.UnavailableError) {
        let parts = Self.numbered(label)
        let own = try Self.makeOwnTransport(transport, threadNamePrefix: parts.prefix).get()
        self.init(
            parts: parts, own: own,
            features: Features(
                cookieJar: cookieJar, httpCache: httpCache, delivery: delivery, settings: settings,
                middleware: middleware))
    }

    /// What a client of its own carries besides its transport, handed down its initializers as one value.
    struct Features {
        var cookieJar: CookieJar?
        var httpCache: HTTPCache?
        var delivery: Delivery = .callbackQueue
        var settings = Settings()
        var middleware: [any ConnectionMiddleware] = []
    }

    /// A client on the transport `made`, or, when it could not be made, on one that refuses every transfer
    /// with `transportUnavailable` (the reason for each request, rather than a client that quietly falls
    /// back to URLSession or cannot be declared).
    convenience init(
        parts: (label: String, prefix: String), made: Result<OwnTransport, ConnectionTransport.UnavailableError>,
        features: Features
    ) {
        let own: OwnTransport
        switch made {
        case .success(let transport): own = transport
        case .failure(let error):
            let refusing = UnavailableTransport(reason: error.reason)
            own = OwnTransport(
                transport: ConnectionTransport(implementation: refusing, name: "libcurl"), stop: {}, threadIDs: { [] })
        }
        self.init(parts: parts, own: own, features: features)
    }

    /// A client's own transport, how to stop it, and its threads.
    struct OwnTransport {
        let transport: ConnectionTransport
        let stop: @Sendable () -> Void
        let threadIDs: @Sendable () -> [Int32]
    }

    /// Makes the transport `choice` names, its threads named with `threadNamePrefix`.
    static func makeOwnTransport(
        _ choice: TransportChoice, threadNamePrefix: String
    ) -> Result<OwnTransport, ConnectionTransport.UnavailableError> {
        guard case .libcurl = choice else {
            let session = URLSessionTransport.makeOwned()
            return .success(
                OwnTransport(
                    transport: ConnectionTransport(implementation: session, name: "URLSession"),
                    stop: { session.shutdown() }, threadIDs: { [] }))
        }
        #if canImport(CCurlShim)
            return CurlTransport.make(threadName: threadNamePrefix + "curl").map { curl in
                OwnTransport(
                    transport: ConnectionTransport(implementation: curl, name: "libcurl"),
                    stop: { curl.shutdown() }, threadIDs: { curl.threadIDs })
            }
        #else
            return .failure(
                ConnectionTransport.UnavailableError(reason: "the libcurl transport is available on Linux only"))
        #endif
    }

    private init(parts: (label: String, prefix: String), own: OwnTransport, features: Features) {
        self.label = parts.label
        self.threadNamePrefix = parts.prefix
        self.cookieJar = features.cookieJar
        self.httpCache = features.httpCache
        self.delivery = features.delivery
        self.settings = features.settings
        self.middleware = features.middleware
        let label = parts.label
        let (registry, activity) = (ConnectionRegistry(), NetworkActivity())
        self.registry = registry
        self.activity = activity
        let timerQueue = DispatchQueue(label: "ConnectionKit.timers.\(label)", qos: .utility)
        self.timers = SharedTimers(queue: timerQueue)
        self.processingQueue = ConnectionQueues.makeProcessing(label: "ConnectionKit.processing.\(label)")
        self.processingExecutor = ProcessingExecutor(queue: processingQueue)
        self.ownTransport = own.transport
        self.stopTransports = own.stop
        self.transportThreadIDs = own.threadIDs
        self.observers = Self.observers(registry: registry, activity: activity)
    }

    /// What moves the bytes of this client's requests, unless a class overrides
    /// ``AnyConnectionRequest/transport``: ``ConnectionTransport/default`` for ``shared``, the client's
    /// own transport for any other.
    public var transport: ConnectionTransport { ownTransport ?? .default }

    /// The label and the transport's name, e.g. `ConnectionClient(billing, libcurl)`.
    public var description: String { "ConnectionClient(\(label), \(transport.name))" }

    /// How many clients were created; numbers their threads.
    private static let created = Locked(0)

    /// The label (given, or `client<n>`) and the thread-name prefix of the next client.
    private static func numbered(_ label: String?) -> (label: String, prefix: String) {
        let number = created.withLock { count in
            count += 1
            return count
        }
        return (label ?? "client\(number)", "CK\(number).")
    }

    /// The one list of observers, in the order they hear an event: the history first (it copies the
    /// run's body preview), then the debug output (which releases it), the event streams, the activity
    /// count and the offline queue.
    private static func observers(registry: ConnectionRegistry, activity: NetworkActivity) -> [any RequestObserver] {
        [
            ConnectionHistoryObserver(registry: registry), DebugOutputObserver(), registry, activity,
            OfflineInterception.shared,
        ]
    }

    // MARK: - Observers

    /// Tells every observer.
    func notify(_ event: RequestEvent, for request: AnyConnectionRequest) {
        for observer in observers {
            observer.request(request, did: event)
        }
    }

    /// Whether an observer takes the ending over. Every observer is asked (each may need to forget
    /// the run); the first that takes it wins.
    func takeOver(_ outcome: RunOutcome, for request: AnyConnectionRequest) -> Bool {
        observers.reduce(false) { taken, observer in observer.request(request, takesOver: outcome) || taken }
    }

    /// Whether progress is worth reporting: somebody listens to the registry's events.
    var wantsProgress: Bool { registry.hasListeners }

    /// A timer of this client's ``timers``, not armed yet.
    func makeTimer(handler: @escaping @Sendable (SharedTimer) -> Void) -> SharedTimer {
        timers.makeTimer(handler: handler)
    }

    /// The kernel ids (entries of `/proc/self/task`) of the threads the client started: its libcurl loops
    /// once they run; none for a URLSession client or the shared client (for tests).
    var ownedThreadIDs: [Int32] { transportThreadIDs() }

    /// How many loop threads a libcurl transport runs: one per core, up to four, for bodies kept in memory,
    /// and one for bodies saved to a file (none where libcurl is not built in).
    static var libcurlThreadCount: Int {
        #if canImport(CCurlShim)
            CurlTransport.memoryLoopCount + 1
        #else
            0
        #endif
    }

    /// Stops the transports (called once, when the last run ended after a shutdown began).
    func stopOwnedTransports() {
        stopTransports()
    }

    /// The shared client's transports: the process's URLSessions and, if it was loaded, libcurl's loops.
    private static func stopProcessTransports() {
        URLSessionTransport.shared.shutdown()
        #if canImport(CCurlShim)
            if CurlTransport.sharedCreated.withLock({ $0 }), case .success(let curl) = CurlTransport.shared {
                curl.shutdown()
            }
        #endif
    }
}
