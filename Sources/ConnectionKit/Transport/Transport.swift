import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Moves one HTTP exchange over the wire: the one place where bytes are moved. Requests only ever
/// talk to this protocol (their ``AnyConnectionRequest/transport`` hook, default
/// ``ConnectionTransport/default``), so a transport is added without touching them: URLSession's in
/// `Transport/URLSession/`, libcurl's in `Transport/Curl/`.
///
/// # What a transport does, and what it leaves to the request
/// - It sends the request as given: no redirects followed, no authentication challenge answered (a
///   3xx or a 401 is delivered as a response), no cookies, no cache.
/// - It decodes the body (`Content-Encoding`) and delivers headers as received; the request counts
///   the decoded bytes and ignores `Content-Length` when the body was encoded.
/// - It hands the response over as a ``TransportResponse``: the status and the header fields, read once;
///   the `HTTPURLResponse` is built from them only when user code asks for one (``ConnectionResponse``).
/// - It does not time out a quiet transfer: the request enforces `timeoutInterval`
///   (`URLRequest.timeoutInterval` carries it). A transport's own timer, if it has one, is pushed past it.
/// - It maps its own failures to `URLError` codes (or a `ConnectionError` for a size limit), so that
///   errors and retry decisions read the same whatever moved the bytes.
///
/// # Threading contract (every transport, relied on by `TransferContext` and the request)
/// 1. The events of one transfer are delivered serially (never two at once), on the transport's own
///    threads, never on the caller's thread inside `startTransfer`.
/// 2. Events may begin before `startTransfer` returns: the receiver is ready when it is passed in,
///    and the request copes with a transfer that completed before its handle was stored.
/// 3. `transferDidReceive(response:)` comes once per transfer, only when the whole header block
///    arrived (a response cut short is an error, never a response), before any body data.
/// 4. At most one `transferDidComplete`, and nothing after it.
/// 5. `TransferHandle.cancel()` returns at once, from any thread, including from inside one of the
///    transfer's own events (the request cancels from there). Once it returned, no event is
///    delivered (one already running on another thread may finish) and no completion follows.
/// 6. `pauseReceiving()` either stops reading the body (data already read may still arrive) and
///    returns `true`, or returns `false` at once when the transport cannot pause; the request then
///    fails the stream rather than buffering without bound.
/// 7. Metrics (`transferDidCollect`) come, where the transport has them, before the completion.
protocol Transport: Sendable {
    /// Starts sending `request`; events go to `receiver` (serially) until it completes or is cancelled.
    /// `bodyFile`, when set, is the body, streamed from disk (`request.httpBody` is then `nil`).
    func startTransfer(_ request: URLRequest, bodyFile: URL?, receiver: any TransferReceiver) -> any TransferHandle

    /// The transport for transfers whose body is saved to a file: a lane of its own, so that a bulk
    /// download's disk writes do not hold up small requests (URLSession: a second session; libcurl: a
    /// second event loop). Default: this one.
    var fileTransport: any Transport { get }
}

extension Transport {
    var fileTransport: any Transport { self }
}

/// The events of one transfer, delivered serially, never after `transferDidComplete` or after
/// the transfer's handle was cancelled.
protocol TransferReceiver: AnyObject, Sendable {
    /// A response arrived: its status and header fields, its `HTTPURLResponse` built only on demand.
    func transferDidReceive(response: TransportResponse)
    func transferDidReceive(data: Data)
    func transferDidSend(totalBytes: Int64, expectedBytes: Int64)
    /// `response` is the final response, if any arrived; `error` is nil on success.
    func transferDidComplete(response: TransportResponse?, error: (any Error)?)
    /// The transport's connection-level timings, where it reports them (before `transferDidComplete`).
    func transferDidCollect(metrics: TransferMetrics)
}

/// Controls one running transfer.
protocol TransferHandle: Sendable {
    /// Stops the transfer. Returns at once; no event reaches the receiver afterwards.
    func cancel()

    /// Asks the transport to stop reading the response body for now (backpressure from a streaming
    /// request whose consumer fell behind). Returns `false` when the transport cannot pause; the
    /// request then fails rather than buffering without bound. A `true` may still let the data
    /// already read arrive. Default: `false` (URLSession cannot pause a task without restarting it
    /// from byte 0 on Linux, see LINUX.md).
    func pauseReceiving() -> Bool

    /// Undoes ``pauseReceiving()``. Default: nothing.
    func resumeReceiving()
}

extension TransferHandle {
    func pauseReceiving() -> Bool { false }
    func resumeReceiving() {}
}
