import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Moves one HTTP exchange over the wire. Requests only ever talk to this protocol, so another
/// transport (a libcurl or NIO one, say) can be added without touching them.
///
/// A transport follows no redirects and answers no authentication challenges itself: a 3xx or a
/// 401 is delivered as a response, and the request decides what to do. It keeps no cookies and no
/// cache, and hands over bodies decoded (`Content-Encoding`), headers as received.
///
/// The threading contract that `TransferContext` and the request rely on, for every transport:
/// - the events of one transfer are delivered serially (never two at once), on the transport's own
///   threads, never on the caller's thread inside `startTransfer`;
/// - events may begin before `startTransfer` returns: the receiver must be ready when it is called;
/// - at most one `transferDidComplete`, and nothing after it;
/// - nothing is delivered once `cancel()` has returned (an event already being delivered on another
///   thread may still finish); `cancel()` returns at once, from any thread, including from inside
///   one of the transfer's own events;
/// - a final response (`transferDidReceive(response:)`) is delivered only once its whole header
///   block arrived; a response cut short is an error, never a response.
protocol Transport: Sendable {
    /// Starts sending `request`; events go to `receiver` (serially) until it completes or is cancelled.
    /// `bodyFile`, when set, is the body, streamed from disk (`request.httpBody` is then `nil`).
    func startTransfer(_ request: URLRequest, bodyFile: URL?, receiver: any TransferReceiver) -> any TransferHandle

    /// The transport for transfers whose body is saved to a file. Default: this one.
    var fileTransport: any Transport { get }
}

extension Transport {
    var fileTransport: any Transport { self }
}

/// The events of one transfer, delivered serially, never after `transferDidComplete` or after
/// the transfer's handle was cancelled.
protocol TransferReceiver: AnyObject, Sendable {
    func transferDidReceive(response: HTTPURLResponse)
    func transferDidReceive(data: Data)
    func transferDidSend(totalBytes: Int64, expectedBytes: Int64)
    /// `response` is the final response, if any arrived; `error` is nil on success.
    func transferDidComplete(response: HTTPURLResponse?, error: (any Error)?)
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
