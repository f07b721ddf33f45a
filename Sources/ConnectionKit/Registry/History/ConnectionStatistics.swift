import Foundation

/// What one request class did since the process started or since
/// ``ConnectionRegistry/resetStatistics()``: counts, bytes and latency percentiles.
///
/// Counted when a run ends, in fixed memory per class (a histogram of 170 buckets), however many
/// requests run. Latency is each run's duration, start to end, retries included.
public struct ConnectionStatistics: Sendable, Hashable, Codable {
    /// Latency percentiles, in seconds, read from a histogram whose buckets are 10 % wide.
    public struct Latency: Sendable, Hashable, Codable {
        /// The median.
        public var p50: TimeInterval
        /// The 90th percentile.
        public var p90: TimeInterval
        /// The 99th percentile.
        public var p99: TimeInterval
        /// The longest run seen (exact).
        public var max: TimeInterval
        /// The sum of every run's duration (exact), for a mean or a Prometheus `_sum`.
        public var sum: TimeInterval
    }

    /// A cumulative histogram bucket as Prometheus exposes it: runs that took at most `upperBound` seconds.
    public struct Bucket: Sendable, Hashable, Codable {
        /// The bucket's `le` bound, in seconds.
        public var upperBound: TimeInterval
        /// Runs at or under the bound.
        public var count: Int
    }

    /// The request class, e.g. `FetchEvents`.
    public var typeName: String
    /// When counting began: the first run's end after the start of the process or the last reset.
    public var since: Date
    /// Runs that ended.
    public var requests: Int
    /// Runs that delivered a result.
    public var successes: Int
    /// Runs that ended with an error (cancellations not included).
    public var failures: Int
    /// Runs that were cancelled.
    public var cancellations: Int
    /// Failures by error kind (``ConnectionHistoryRecord/errorKind``), e.g. `["timedOut": 2]`.
    public var failuresByKind: [String: Int]
    /// Retries made, over every run.
    public var retries: Int
    /// How the class's HTTP cache answered its runs (all zero for a class without a cache).
    public var cache: CacheCounts
    /// Request-body bytes sent (final attempts).
    public var bytesSent: Int64
    /// Response-body bytes received (final attempts).
    public var bytesReceived: Int64
    /// Latency percentiles.
    public var latency: Latency
    /// Cumulative counts at the bounds of ``ConnectionRegistry/latencyBucketBounds``.
    public var latencyBuckets: [Bucket]

    /// Failures over requests, 0 when there were none.
    public var errorRate: Double {
        requests == 0 ? 0 : Double(failures) / Double(requests)
    }
}
