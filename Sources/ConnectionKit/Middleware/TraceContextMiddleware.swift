import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A W3C Trace Context (`traceparent`, `tracestate`) as a caller hands it down: the trace a request's
/// attempts belong to, and the span that is their parent.
public struct TraceContext: Sendable, Hashable {
    /// The trace's id: 16 bytes, not all zero.
    public let traceID: [UInt8]
    /// The parent span's id: 8 bytes, not all zero.
    public let parentID: [UInt8]
    /// The trace flags; bit 0 is "sampled".
    public let flags: UInt8
    /// The `tracestate` field to pass on as it is, if any.
    public let state: String?

    /// The context that a request started in this task (`value()` or `start()`) takes as its parent; `nil`
    /// outside a `$current.withValue(...)` scope.
    @TaskLocal public static var current: TraceContext?

    /// A context of the ids given; `nil` when an id has the wrong length or is all zero (W3C Trace Context
    /// §3.2.2.3, §3.2.2.4), or `state` holds a byte a header field value cannot.
    public init?(traceID: [UInt8], parentID: [UInt8], flags: UInt8 = 1, state: String? = nil) {
        guard traceID.count == 16, parentID.count == 8, traceID.contains(where: { $0 != 0 }),
            parentID.contains(where: { $0 != 0 }),
            state.map({ $0.utf8.allSatisfy { $0 == 0x09 || (0x20...0x7E).contains($0) } }) ?? true
        else { return nil }
        self.traceID = traceID
        self.parentID = parentID
        self.flags = flags
        self.state = state
    }

    /// The context an incoming `traceparent` field (and its `tracestate`) carries; `nil` when the field is not
    /// a valid version-00 (or later, read as 00) `traceparent`.
    public init?(traceparent: String, tracestate: String? = nil) {
        let parts = traceparent.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count >= 4, parts[0].count == 2, parts[0] != "ff", parts[0] == "00" ? parts.count == 4 : true,
            Self.bytes(hex: parts[0]) != nil, let traceID = Self.bytes(hex: parts[1]), traceID.count == 16,
            let parentID = Self.bytes(hex: parts[2]), parentID.count == 8, let flags = Self.bytes(hex: parts[3]),
            flags.count == 1
        else { return nil }
        self.init(traceID: traceID, parentID: parentID, flags: flags[0], state: tracestate)
    }

    /// A new trace, sampled, of random ids: the parent of a request started outside any trace.
    static func newTrace() -> TraceContext {
        TraceContext(traceID: randomID(count: 16), parentID: randomID(count: 8), flags: 1, state: nil)!
    }

    /// `count` random bytes, not all zero (an all-zero id is invalid).
    static func randomID(count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        while true {
            let bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
            if bytes.contains(where: { $0 != 0 }) { return bytes }
        }
    }

    /// The lowercase hex digits' bytes; `nil` for anything else (W3C requires lowercase).
    static func bytes(hex: Substring) -> [UInt8]? {
        SHA256.bytes(fromHexDigits: Array(hex.utf8), lowercaseOnly: true)
    }

    /// The `traceparent` value of a span `spanID` of this trace.
    func traceparent(spanID: [UInt8]) -> String {
        "00-\(SHA256.hex(traceID))-\(SHA256.hex(spanID))-\(SHA256.hex([flags]))"
    }
}

/// Propagates W3C Trace Context: every attempt of a request sends a `traceparent` naming a span of its own
/// (a new span id per attempt, so that a retry is told apart from the first try), in the trace of the
/// parent the caller supplies, and the parent's `tracestate` unchanged.
///
/// The parent is read when a run starts, in the caller's task: by default ``TraceContext/current`` (set it
/// with `TraceContext.$current.withValue(parent) { ... }` around `value()` or `start()`), or what the
/// `parent` closure given at creation returns. Without a parent, the run starts a new trace (sampled), shared
/// by its attempts. A request that sets `traceparent` itself has it replaced: one trace per run.
///
/// ```swift
/// let client = ConnectionClient(middleware: [TraceContextMiddleware()])
/// ```
public struct TraceContextMiddleware: ConnectionMiddleware {
    private let parent: @Sendable (AnyConnectionRequest) -> TraceContext?
    private let spanStarted: (@Sendable (TraceContext, [UInt8]) -> Void)?

    /// Propagation with the parent `parent` returns for a request (by default ``TraceContext/current``).
    /// `spanStarted`, if given, hears each attempt's span: the parent context and the new span id, to record
    /// the client span in your tracer.
    public init(
        parent: @escaping @Sendable (AnyConnectionRequest) -> TraceContext? = { _ in TraceContext.current },
        spanStarted: (@Sendable (_ parent: TraceContext, _ spanID: [UInt8]) -> Void)? = nil
    ) {
        self.parent = parent
        self.spanStarted = spanStarted
    }

    /// The run's parent, or a new trace.
    public func runStarted(_ request: AnyConnectionRequest) -> (any Sendable)? {
        parent(request) ?? TraceContext.newTrace()
    }

    /// Sets `traceparent` (a new span of the run's trace) and `tracestate`.
    public func prepare(_ request: inout URLRequest, context: MiddlewareContext) throws {
        guard let trace = context.runValue as? TraceContext else { return }
        let spanID = TraceContext.randomID(count: 8)
        request.setValue(trace.traceparent(spanID: spanID), forHTTPHeaderField: "traceparent")
        request.setValue(trace.state, forHTTPHeaderField: "tracestate")
        spanStarted?(trace, spanID)
    }
}
