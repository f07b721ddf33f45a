import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A request for a `text/event-stream` endpoint (server-sent events), decoded by the WHATWG
/// EventSource rules (``SSEDecoder``), reconnecting as EventSource does.
///
/// ```swift
/// final class FollowPrices: ServerSentEventsRequest, @unchecked Sendable {
///     override var url: URL? { URL(string: "https://api.example.com/prices") }
/// }
/// ```
///
/// Every attempt sends `Accept: text/event-stream`, `Cache-Control: no-cache` and, once the server
/// has set one, `Last-Event-ID` (``lastEventID``). When the connection drops (a transport error or
/// the idle timeout), the request reconnects if ``AnyConnectionRequest/retryPolicy`` allows it
/// (default here: `RetryPolicy.default`), after the server's `retry` time when it sent one, else the
/// policy's backoff. The policy's `maximumAttempts` counts consecutive attempts that brought no event;
/// its `deadline` bounds the whole run. A server cannot make it reconnect in a loop: its `retry` is
/// held between ``minimumReconnectionTime`` and the policy's longest wait (`maximumRetryAfter`), and
/// every connection in a row that drops within 10 s of its start doubles the wait (from the policy's
/// `initialBackoff`), events or not.
///
/// As the specification says, a 204 answer, or a 2xx answer whose content type is not
/// `text/event-stream`, ends the run without reconnecting: with
/// `ConnectionError.Kind.unacceptableStatusCode(204, body:)`, or `.parsing` with
/// ``ServerSentEventsError/notAnEventStream(contentType:)``. One deliberate difference from a
/// browser: when the server ends the body cleanly, the run completes (with the number of events)
/// instead of reconnecting, because a request has an end.
open class ServerSentEventsRequest: StreamingConnectionRequest<ServerSentEvent>, @unchecked Sendable {
    // Safe: the only stored property is a locked box.
    private let resumption = Locked(Resumption())

    private struct Resumption {
        var lastEventID = ""
        var reconnectionTime: TimeInterval?
        /// The last attempt that received an event (0: none yet).
        var attemptWithEvents = 0
        /// The server's `retry` field in milliseconds (`Int.max` when past it), as the decoder read it.
        var serverRetry: Int?
        /// When the current attempt's response arrived (`ProcessInfo.systemUptime`); `nil` before it.
        var connectedAt: TimeInterval?
        var backoff = ReconnectionBackoff(minimum: 0)
    }

    /// Creates an idle request.
    public override init() {
        super.init()
    }

    /// Reconnects after a dropped connection: `RetryPolicy.default` (three attempts in a row without an
    /// event, exponential backoff unless the server sent `retry`).
    open override var retryPolicy: RetryPolicy { .default }

    /// The last event ID the server set: sent as `Last-Event-ID` by the next attempt. Settable, to resume
    /// a stream from an ID saved earlier; kept across runs of this object. Default empty (not sent).
    public var lastEventID: String {
        get { resumption.withLock { $0.lastEventID } }
        set { resumption.withLock { $0.lastEventID = newValue } }
    }

    /// The reconnection time the server set with a `retry` field, in seconds; `nil` until it sends one.
    public var reconnectionTime: TimeInterval? { resumption.withLock { $0.reconnectionTime } }

    /// The shortest wait before a reconnection, in seconds, whatever the server's `retry` field asks
    /// for (a `retry: 0` would otherwise reconnect as fast as the server drops). Default 0.5.
    open var minimumReconnectionTime: TimeInterval { 0.5 }

    /// Adds `Accept: text/event-stream` and `Cache-Control: no-cache` (unless set), and `Last-Event-ID`
    /// when ``lastEventID`` is not empty, to what the base class builds.
    open override func makeURLRequest() throws -> URLRequest {
        var request = try super.makeURLRequest()
        if request.value(forHTTPHeaderField: "Accept") == nil {
            request.setValue("text/event-stream", forHTTPHeaderField: "Accept")
        }
        if request.value(forHTTPHeaderField: "Cache-Control") == nil {
            request.setValue("no-cache", forHTTPHeaderField: "Cache-Control")
        }
        let lastEventID = self.lastEventID
        if !lastEventID.isEmpty {
            request.setValue(lastEventID, forHTTPHeaderField: "Last-Event-ID")
        }
        return request
    }

    /// An ``SSEDecoder`` starting from ``lastEventID``, limited to
    /// ``StreamingConnectionRequest/maximumElementSize`` per event.
    open override func makeDecoder(for response: ConnectionResponse) throws -> any StreamDecoder<ServerSentEvent> {
        SSEDecoder(lastEventID: lastEventID, maximumEventSize: maximumElementSize)
    }

    /// The policy's decision, counting only the attempts since the last one that brought an event, and
    /// waiting the server's `retry` time when it sent one; held between ``minimumReconnectionTime`` and
    /// the policy's longest wait, and doubled for each connection in a row that dropped within 10 s.
    open override func retryDecision(for error: ConnectionError, attempt: Int, response: ConnectionResponse?)
        -> RetryDecision
    {
        let withEvents = resumption.withLock { $0.attemptWithEvents }
        let failedInARow = withEvents > 0 ? attempt - withEvents + 1 : attempt
        let decision = super.retryDecision(for: error, attempt: max(1, failedInARow), response: response)
        guard case .retry(let policyWait) = decision else { return decision }
        let (policy, minimum, now) = (retryPolicy, minimumReconnectionTime, ProcessInfo.processInfo.systemUptime)
        return resumption.withLock { state in
            if attempt <= 1 { state.backoff = ReconnectionBackoff(minimum: minimum) }
            state.backoff.minimum = minimum
            let connected = state.connectedAt.map { now - $0 }
            state.connectedAt = nil
            return .retry(
                after: state.backoff.wait(
                    policyWait: policyWait, serverRetry: state.serverRetry, connected: connected, policy: policy))
        }
    }

    // MARK: - Plumbing

    override func streamSink(for response: ConnectionResponse, run: RunNumber) throws -> (any BodySink)? {
        if response.statusCode == 204 {
            throw ConnectionError(.unacceptableStatusCode(204, body: nil))
        }
        let now = ProcessInfo.processInfo.systemUptime
        resumption.withLock { $0.connectedAt = now }
        if (200..<300).contains(response.statusCode) {
            let contentType = response.value(forHTTPHeaderField: "Content-Type")
            let mediaType = contentType?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces)
            guard mediaType?.lowercased() == "text/event-stream" else {
                throw ConnectionError(
                    .parsing(underlying: ServerSentEventsError.notAnEventStream(contentType: contentType)))
            }
        }
        return try super.streamSink(for: response, run: run)
    }

    override func decoderDidAdvance(
        _ decoder: any StreamDecoder<ServerSentEvent>, elements: [ServerSentEvent], attempt: Int
    ) {
        guard let decoder = decoder as? SSEDecoder else { return }
        resumption.withLock { state in
            state.lastEventID = decoder.lastEventID
            if let milliseconds = decoder.reconnectionTime {
                state.reconnectionTime = Double(milliseconds) / 1000
                state.serverRetry = milliseconds
            }
            if !elements.isEmpty { state.attemptWithEvents = attempt }
        }
    }
}
