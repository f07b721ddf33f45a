import Foundation

/// Durations counted in a fixed set of buckets: O(1) to record, the same memory after a million
/// requests as after one.
///
/// Fine buckets grow by 10 % from 0.1 ms to about 14 minutes (170 of them), so a percentile read
/// from them is within 10 % of the true value. Beside them, cumulative counts at the Prometheus
/// bounds (``prometheusBounds``) are kept exactly.
struct LatencyHistogram: Sendable, Hashable {
    /// The upper bound of the first fine bucket, in seconds.
    static let smallest: Double = 0.000_1
    /// Each fine bucket's upper bound is this factor times the previous one.
    static let growth: Double = 1.1
    /// The number of fine buckets; longer durations go into the last.
    static let bucketCount = 170
    /// The `le` bounds of the `/metrics` histogram, in seconds (+Inf implied).
    static let prometheusBounds: [Double] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60]

    private(set) var buckets = [Int](repeating: 0, count: LatencyHistogram.bucketCount)
    private(set) var boundCounts = [Int](repeating: 0, count: LatencyHistogram.prometheusBounds.count)
    private(set) var count = 0
    private(set) var sum: Double = 0
    private(set) var maximum: Double = 0

    /// The fine bucket of `seconds`.
    static func bucket(of seconds: Double) -> Int {
        guard seconds > smallest else { return 0 }
        let index = Int((log(seconds / smallest) / log(growth)).rounded(.up))
        return min(max(index, 0), bucketCount - 1)
    }

    /// The upper bound of fine bucket `index`, in seconds.
    static func upperBound(of index: Int) -> Double {
        smallest * pow(growth, Double(index))
    }

    mutating func record(_ seconds: Double) {
        let value = seconds.isFinite ? max(0, seconds) : 0
        buckets[Self.bucket(of: value)] += 1
        for (index, bound) in Self.prometheusBounds.enumerated() where value <= bound {
            boundCounts[index] += 1
        }
        count += 1
        sum += value
        maximum = max(maximum, value)
    }

    /// The duration below which `fraction` (0...1) of the recorded ones fall: a fine bucket's upper
    /// bound, capped at the maximum seen; 0 when nothing was recorded.
    func percentile(_ fraction: Double) -> Double {
        guard count > 0 else { return 0 }
        let rank = max(1, Int((fraction * Double(count)).rounded(.up)))
        var seen = 0
        for (index, bucketCount) in buckets.enumerated() {
            seen += bucketCount
            if seen >= rank { return min(Self.upperBound(of: index), maximum) }
        }
        return maximum
    }
}
