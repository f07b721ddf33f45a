import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The timings of one attempt of a run, for the history and the inspector's waterfall.
///
/// ConnectionKit times every attempt itself (``start``, ``responseStart``, ``end``), on every
/// transport. The connection-level details (name lookup, connect, TLS, reuse, protocol, remote
/// address) come from the transport, where it reports them: URLSession delivers
/// `URLSessionTaskMetrics` on Apple platforms; on Linux FoundationNetworking never does, so they
/// stay `nil` there.
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
    /// Whether the attempt reused an open connection, when the transport reports it.
    public var isReusedConnection: Bool?
    /// The protocol the response came over, e.g. `http/1.1` or `h2`, when the transport reports it.
    public var httpVersion: String?
    /// The server's IP address, when the transport reports it.
    public var remoteAddress: String?

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

    /// Takes the connection details of the last transaction of `metrics` (the one that produced
    /// the attempt's final response; earlier ones are redirect hops).
    mutating func fill(from metrics: URLSessionTaskMetrics) {
        guard let transaction = metrics.transactionMetrics.last else { return }
        domainLookupDuration = Self.seconds(transaction.domainLookupStartDate, transaction.domainLookupEndDate)
        let connectEnd = transaction.secureConnectionStartDate ?? transaction.connectEndDate
        connectDuration = Self.seconds(transaction.connectStartDate, connectEnd)
        secureConnectionDuration = Self.seconds(
            transaction.secureConnectionStartDate, transaction.secureConnectionEndDate)
        isReusedConnection = transaction.isReusedConnection
        httpVersion = transaction.networkProtocolName
        remoteAddress = transaction.remoteAddress
    }

    private static func seconds(_ from: Date?, _ to: Date?) -> TimeInterval? {
        guard let from, let to else { return nil }
        return max(0, to.timeIntervalSince(from))
    }
}
