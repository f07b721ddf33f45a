import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Moves one HTTP exchange over the wire: the one place where bytes are moved. Requests only ever
/// talk to this protocol (their ``AnyConnectionRequest/transport`` hook, default
/// ``ConnectionTransport/default``), so a transport is added without touching them: URLSession's in
/// `Transport/URLSession/`, libcurl's in `Transport/Curl/`. Nothing outside `Transport/` knows which
/// transport it holds: what a request asks of one transfer travels in its ``TransferOptions``.
///
/// # What a transport does, and what it leaves to the request
/// - It sends the request as given: no redirects followed, no authentication challenge answered (a
///   3xx or a 401 is delivered as a response), no cookies, no cache.
/// - It honours every ``TransferOptions`` field or refuses the transfer: ``prepareTransfer(_:options:)``
///   throws a `ConnectionError` (`.invalidRequest`, or `.tls` with reason `.unsupported`) that says
///   which transport could do it. A refused transfer sends nothing and delivers no event; the request
///   ends with the error, without a retry. An option is never ignored.
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
///    threads, never on the caller's thread inside ``PreparedTransfer/start(receiver:)``.
/// 2. Events may begin before `start(receiver:)` returns: the receiver is ready when it is passed in,
///    and the request copes with a transfer that completed before its handle was stored.
/// 3. `transferDidReceive(response:)` comes once per transfer, only when the whole header block
///    arrived (a response cut short is an error, never a response), before any body data.
/// 4. At most one `transferDidComplete`, and nothing after it.
/// 5. `TransferHandle.cancel()` returns at once, from any thread, including from inside one of the
///    transfer's own events (the request cancels from there). Once it returned, no event is
///    delivered (one already running on another thread may finish) and no completion follows.
/// 6. Flow control is demand: the receiver answers each piece of the body with a ``TransferDemand``.
///    After `.wait`, a transport whose handle ``TransferHandle/followsDemand`` reads no more of the
///    body (the piece it was already handing over may still arrive) until the receiver asks for more
///    with ``TransferHandle/demandMore()``, which may come from any thread, even before the `.wait`
///    answer reached the transport: each `.wait` is matched by one `demandMore()`, and the transfer
///    reads while none is unmatched. A transport that cannot hold a body back (URLSession) says so
///    with `followsDemand == false`; the request then bounds its buffer by failing the stream rather
///    than growing.
/// 7. Metrics (`transferDidCollect`) come, where the transport has them, before the completion.
protocol Transport: Sendable {
    /// Checks that this transport can send `request` as `options` ask, and readies the transfer: nothing
    /// is sent until ``PreparedTransfer/start(receiver:)``. A request prepares each transfer (an attempt
    /// or a redirect hop) before it counts it, so a refusal ends the request before anything is sent.
    /// - Throws: the refusal of an option this transport cannot honour (a proxy, TLS settings), or of
    ///   options it could not resolve (an unreadable CA file, say): `.invalidRequest` or `.tls`.
    func prepareTransfer(_ request: URLRequest, options: TransferOptions) throws(ConnectionError)
        -> any PreparedTransfer
}

/// A transfer a transport accepted (``Transport/prepareTransfer(_:options:)``) and has not started:
/// nothing was sent. Started at most once; one that is never started holds nothing that needs closing.
protocol PreparedTransfer: Sendable {
    /// Starts sending; events go to `receiver` (serially) until the transfer completes or is cancelled.
    func start(receiver: any TransferReceiver) -> any TransferHandle
}

extension Transport {
    /// Prepares and starts a transfer in one step (what a caller that needs no refusal before counting does).
    func startTransfer(
        _ request: URLRequest, options: TransferOptions = TransferOptions(), receiver: any TransferReceiver
    ) throws(ConnectionError) -> any TransferHandle {
        try prepareTransfer(request, options: options).start(receiver: receiver)
    }
}

/// The events of one transfer, delivered serially, never after `transferDidComplete` or after
/// the transfer's handle was cancelled.
protocol TransferReceiver: AnyObject, Sendable {
    /// A response arrived: its status and header fields, its `HTTPURLResponse` built only on demand.
    func transferDidReceive(response: TransportResponse)
    /// A piece of the body. The answer is the receiver's demand: `.more`, or `.wait` until it calls
    /// ``TransferHandle/demandMore()`` (see the threading contract, point 6).
    func transferDidReceive(data: Data) -> TransferDemand
    /// A piece of the body that lives only for the call (a transport's own buffer): a receiver that keeps
    /// the body in memory copies it once, into that body, instead of into a `Data` of its own first.
    func transferDidReceive(bytes: UnsafeRawBufferPointer) -> TransferDemand
    func transferDidSend(totalBytes: Int64, expectedBytes: Int64)
    /// `response` is the final response, if any arrived; `error` is nil on success.
    func transferDidComplete(response: TransportResponse?, error: (any Error)?)
    /// The transport's connection-level timings, where it reports them (before `transferDidComplete`).
    func transferDidCollect(metrics: TransferMetrics)
}

extension TransferReceiver {
    func transferDidReceive(bytes: UnsafeRawBufferPointer) -> TransferDemand {
        transferDidReceive(data: Data(bytes))
    }
}

/// Controls one running transfer.
protocol TransferHandle: Sendable {
    /// Stops the transfer. Returns at once; no event reaches the receiver afterwards.
    func cancel()

    /// Whether the transport holds the body back while the receiver's demand is `.wait` (libcurl
    /// pauses its socket). `false` when it cannot: URLSession cannot pause a task without restarting
    /// it from byte 0 on Linux (see LINUX.md), so its body keeps coming whatever the receiver answers.
    var followsDemand: Bool { get }

    /// The receiver, which answered `.wait` to a piece of the body, asks for more. Returns at once,
    /// from any thread. Does nothing on a transport that does not follow demand.
    func demandMore()
}
