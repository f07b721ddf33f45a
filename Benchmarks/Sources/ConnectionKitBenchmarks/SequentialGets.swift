import Foundation

/// Small (1 KiB) GETs one after another: the cost of one request's round trip through each layer, and
/// the CPU each layer spends per GET (user + system, the whole process) while doing it.
enum SequentialGets: Benchmark {
    static let name = "sequential"

    static func run(_ options: Options) throws -> [Row] {
        let count = options.quick ? 200 : 1000
        let url = try options.url(ServedFiles.small)
        var cpu: [Variant: [Double]] = [:]
        let figures = try Driver.alternate(rounds: options.rounds) { variant in
            let timing = try Driver.run(count: count, window: 1, url: url, fetch: variant.fetch)
            cpu[variant, default: []].append(timing.cpuMicrosecondsPerRequest)
            return timing.requestsPerSecond
        }
        var row = Row(
            "1 KiB GETs, sequential (\(count))", unit: "req/s", raw: figures.raw,
            connectionKit: figures.connectionKit, goal: .ratioAtLeast(0.95))
        (row.libcurl, row.libcurlGoal) = (figures.libcurl, .ratioAtLeast(3))
        (row.curl, row.wrk) = try ReferenceTools.measure(window: 1, count: count, options)
        return [row, try ReferenceTools.cpuRow(cpu, label: "sequential", window: 1, count: count, options)]
    }
}
