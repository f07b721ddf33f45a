import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What a transport measured about one transfer, in a form every transport can fill: URLSession from
/// `URLSessionTaskMetrics` (Apple platforms; FoundationNetworking never delivers it), libcurl from
/// `curl_easy_getinfo`. `nil` is "not reported". Durations are in seconds.
struct TransferMetrics: Sendable, Hashable {
    var domainLookupDuration: TimeInterval?
    /// The TCP connect, TLS excluded.
    var connectDuration: TimeInterval?
    var secureConnectionDuration: TimeInterval?
    /// From the start of the transfer to the first byte of the response.
    var timeToFirstByte: TimeInterval?
    /// From the start of the transfer to its end.
    var totalDuration: TimeInterval?
    /// Body bytes as they went over the wire (before any `Content-Encoding` decoding).
    var bodyBytesSent: Int64?
    var bodyBytesReceived: Int64?
    var isReusedConnection: Bool?
    /// As ALPN names it: `http/1.1`, `h2`, `h3`.
    var httpVersion: String?
    var remoteAddress: String?
    var remotePort: Int?
}

extension TransferMetrics {
    /// The last transaction of `metrics`: the one that produced the final response of the task
    /// (earlier ones are redirects URLSession followed, which ConnectionKit's tasks never do).
    init(_ metrics: URLSessionTaskMetrics) {
        guard let transaction = metrics.transactionMetrics.last else { return }
        domainLookupDuration = Self.seconds(transaction.domainLookupStartDate, transaction.domainLookupEndDate)
        let connectEnd = transaction.secureConnectionStartDate ?? transaction.connectEndDate
        connectDuration = Self.seconds(transaction.connectStartDate, connectEnd)
        secureConnectionDuration = Self.seconds(
            transaction.secureConnectionStartDate, transaction.secureConnectionEndDate)
        timeToFirstByte = Self.seconds(transaction.fetchStartDate, transaction.responseStartDate)
        totalDuration = Self.seconds(transaction.fetchStartDate, transaction.responseEndDate)
        if transaction.responseEndDate != nil {
            bodyBytesSent = transaction.countOfRequestBodyBytesSent
            bodyBytesReceived = transaction.countOfResponseBodyBytesReceived
        }
        isReusedConnection = transaction.isReusedConnection
        httpVersion = transaction.networkProtocolName
        remoteAddress = transaction.remoteAddress
        #if canImport(FoundationNetworking)
            // FoundationNetworking declares it as a String.
            remotePort = transaction.remotePort.flatMap { Int($0) }
        #else
            remotePort = transaction.remotePort
        #endif
    }

    private static func seconds(_ from: Date?, _ to: Date?) -> TimeInterval? {
        guard let from, let to else { return nil }
        return max(0, to.timeIntervalSince(from))
    }
}
