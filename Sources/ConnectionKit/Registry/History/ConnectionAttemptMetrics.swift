import Foundation

/// The timings of one attempt of a run, for ``ConnectionMetrics``, the history and the inspector's
/// waterfall.
///
/// ConnectionKit times every attempt itself (``start``, ``responseStart``, ``end``), on every
/// transport. The connection-level details (name lookup, connect, TLS, the transport's own first-byte
/// and total times, body bytes each way, reuse, protocol, remote address and port) come from the
/// transport, for the attempt's last transfer (after any redirect hops): the libcurl transport
/// reports them all (`curl_easy_getinfo`); URLSession delivers `URLSessionTaskMetrics` on Apple
/// platforms; on Linux FoundationNetworking never does, so over URLSession they stay `nil` there.
public struct ConnectionAttemptMetrics: Sendable, Hashable, Codable {
    /// The attempt number, starting at 1.
    public var attempt: Int
    /// When the attempt began (its request was being built).
    public var start: Date
    /// When the first response head of the attempt arrived; `nil` when none did.
    public var responseStart: Date?
    /// When the attempt's transfer ended; `nil` while it runs.
    public var end: Date?
    /// Seconds spent resolving the host name, when the transport reports it.
    public var domainLookupDuration: TimeInterval?
    /// Seconds spent opening the TCP connection (TLS excluded), when the transport reports it.
    public var connectDuration: TimeInterval?
    /// Seconds spent on the TLS handshake, when the transport reports it.
    public var secureConnectionDuration: TimeInterval?
    /// Seconds from the start of the transfer to the first byte of the response, as the transport
    /// measured it (without the time ConnectionKit spent building the request), when it reports it.
    public var transferTimeToFirstByte: TimeInterval?
    /// Seconds from the start of the transfer to its end, as the transport measured it, when it reports it.
    public var transferDuration: TimeInterval?
    /// Request-body bytes sent, when the transport reports it.
    public var bytesSent: Int64?
    /// Response-body bytes received as they came over the wire (before `Content-Encoding` decoding),
    /// when the transport reports it.
    public var bytesReceived: Int64?
    /// Whether the attempt reused an open connection, when the transport reports it.
    public var isReusedConnection: Bool?
    /// The protocol the response came over, e.g. `http/1.1` or `h2`, when the transport reports it.
    public var httpVersion: String?
    /// The server's IP address (the proxy's, through a proxy), when the transport reports it.
    public var remoteAddress: String?
    /// The server's port (the proxy's, through a proxy), when the transport reports it.
    public var remotePort: Int?

    /// Creates the metrics of attempt `attempt`, begun at `start`; everything else unknown.
    public init(attempt: Int, start: Date) {
        self.attempt = attempt
        self.start = start
    }

    /// Seconds from the start of the attempt to its first response byte; `nil` without a response.
    public var timeToFirstByte: TimeInterval? {
        responseStart.map { $0.timeIntervalSince(start) }
    }

    /// Seconds from the start to the end of the attempt; `nil` while it runs.
    public var duration: TimeInterval? {
        end.map { $0.timeIntervalSince(start) }
    }

    /// Takes what the transport measured for a transfer of the attempt (the last one counts).
    mutating func fill(from metrics: TransferMetrics) {
        domainLookupDuration = metrics.domainLookupDuration
        connectDuration = metrics.connectDuration
        secureConnectionDuration = metrics.secureConnectionDuration
        transferTimeToFirstByte = metrics.timeToFirstByte
        transferDuration = metrics.totalDuration
        bytesSent = metrics.bodyBytesSent
        bytesReceived = metrics.bodyBytesReceived
        isReusedConnection = metrics.isReusedConnection
        httpVersion = metrics.httpVersion
        remoteAddress = metrics.remoteAddress
        remotePort = metrics.remotePort
    }
}
