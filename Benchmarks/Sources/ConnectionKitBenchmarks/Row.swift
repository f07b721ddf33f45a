import Foundation

/// One line of the table: medians of both variants, their ratio and the goal it is held to.
struct Row: Sendable {
    /// What the goal constrains.
    enum Goal: Sendable {
        /// ConnectionKit / raw at least this (rates: higher is better).
        case ratioAtLeast(Double)
        /// ConnectionKit / raw at most this (times, CPU: lower is better).
        case ratioAtMost(Double)
        /// ConnectionKit's own figure below this (peak memory).
        case connectionKitBelow(Double)
        /// ConnectionKit's own figure at least this (a ratio the row itself computes, e.g. to the curl CLI).
        case connectionKitAtLeast(Double)
        /// Shown for information only.
        case none

        var text: String {
            switch self {
            case .ratioAtLeast(let value): return "ratio ≥ \(Table.format(value))"
            case .ratioAtMost(let value): return "ratio ≤ \(Table.format(value))"
            case .connectionKitBelow(let value): return "CK < \(Table.format(value))"
            case .connectionKitAtLeast(let value): return "CK ≥ \(Table.format(value))"
            case .none: return "-"
            }
        }
    }

    let name: String
    let unit: String
    let raw: [Double]
    let connectionKit: [Double]
    let goal: Goal
    /// ConnectionKit on the libcurl transport, and the goal its ratio to raw is held to (issue 13).
    var libcurl: [Double] = []
    var libcurlGoal: Goal = .none
    /// The same measurement with curl and wrk (small-GET rows only).
    var curl: Double?
    var wrk: Double?

    init(_ name: String, unit: String, raw: [Double], connectionKit: [Double], goal: Goal) {
        self.name = name
        self.unit = unit
        self.raw = raw
        self.connectionKit = connectionKit
        self.goal = goal
    }

    var rawMedian: Double? { Self.median(raw) }
    var connectionKitMedian: Double? { Self.median(connectionKit) }

    /// ConnectionKit's median over raw's.
    var ratio: Double? {
        guard let raw = rawMedian, let connectionKit = connectionKitMedian, raw > 0 else { return nil }
        return connectionKit / raw
    }

    var libcurlMedian: Double? { Self.median(libcurl) }

    /// ConnectionKit-on-libcurl's median over raw's.
    var libcurlRatio: Double? {
        guard let raw = rawMedian, let libcurl = libcurlMedian, raw > 0 else { return nil }
        return libcurl / raw
    }

    /// "yes", "NO" or "-" when there is no goal.
    var verdict: String { Self.verdict(goal, ratio: ratio, median: connectionKitMedian) }

    /// The same for the libcurl column.
    var libcurlVerdict: String { Self.verdict(libcurlGoal, ratio: libcurlRatio, median: libcurlMedian) }

    private static func verdict(_ goal: Goal, ratio: Double?, median: Double?) -> String {
        switch goal {
        case .ratioAtLeast(let bound): return ratio.map { $0 >= bound ? "yes" : "NO" } ?? "-"
        case .ratioAtMost(let bound): return ratio.map { $0 <= bound ? "yes" : "NO" } ?? "-"
        case .connectionKitBelow(let bound): return median.map { $0 < bound ? "yes" : "NO" } ?? "-"
        case .connectionKitAtLeast(let bound): return median.map { $0 >= bound ? "yes" : "NO" } ?? "-"
        case .none: return "-"
        }
    }

    /// The value that `fraction` (0...1) of `values` do not exceed: the nearest-rank percentile.
    static func percentile(_ values: [Double], _ fraction: Double) -> Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        let rank = Int((fraction * Double(sorted.count)).rounded(.up))
        return sorted[min(max(rank, 1), sorted.count) - 1]
    }

    static func median(_ values: [Double]) -> Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
}
