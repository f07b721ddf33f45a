import Foundation

/// Small (1 KiB) GETs with 16 and then 64 in flight: how each layer keeps URLSession busy, and the CPU it
/// spends per GET doing so. The 16-in-flight run also yields each request's latency (fetch called to
/// completion handler run): its p50 and p99 over all requests of a round, then the median over rounds,
/// with no run of its own.
enum ConcurrentGets: Benchmark {
    static let name = "concurrent"

    static func run(_ options: Options) throws -> [Row] {
        let count = options.quick ? 300 : 2000
        let url = try options.url(ServedFiles.small)
        return try [16, 64].flatMap { window in
            var p50: [Variant: [Double]] = [:]
            var p99: [Variant: [Double]] = [:]
            var cpu: [Variant: [Double]] = [:]
            let figures = try Driver.alternate(rounds: options.rounds) { variant in
                let timing = try Driver.run(count: count, window: window, url: url, fetch: variant.fetch)
                cpu[variant, default: []].append(timing.cpuMicrosecondsPerRequest)
                p50[variant, default: []].append(timing.latencyMilliseconds(percentile: 0.50) ?? 0)
                p99[variant, default: []].append(timing.latencyMilliseconds(percentile: 0.99) ?? 0)
                return timing.requestsPerSecond
            }
            var row = Row(
                "1 KiB GETs, \(window) in flight (\(count))", unit: "req/s", raw: figures.raw,
                connectionKit: figures.connectionKit, goal: .ratioAtLeast(0.95))
            (row.libcurl, row.libcurlGoal) = (figures.libcurl, .ratioAtLeast(8))
            (row.curl, row.wrk) = try ReferenceTools.measure(window: window, count: count, options)
            let cpuRow = try ReferenceTools.cpuRow(
                cpu, label: "\(window) in flight", window: window, count: count, options)
            guard window == 16 else { return [row, cpuRow] }
            // The warm-up's figure is the first of each list: the rounds are the last ones.
            func rounds(_ values: [Variant: [Double]], _ variant: Variant) -> [Double] {
                Array((values[variant] ?? []).suffix(options.rounds))
            }
            var median = Row(
                "  latency p50, \(window) in flight", unit: "ms", raw: rounds(p50, .raw),
                connectionKit: rounds(p50, .connectionKit), goal: .none)
            median.libcurl = rounds(p50, .libcurl)
            var tail = Row(
                "  latency p99, \(window) in flight", unit: "ms", raw: rounds(p99, .raw),
                connectionKit: rounds(p99, .connectionKit), goal: .none)
            (tail.libcurl, tail.libcurlGoal) = (rounds(p99, .libcurl), .ratioAtMost(0.30))
            return [row, median, tail, cpuRow, ReferenceTools.overCurl(row, label: "\(window) in flight", goal: 1.0)]
        }
    }
}
