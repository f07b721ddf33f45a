import Foundation

/// Small (1 KiB) GETs one after another: the cost of one request's round trip through each layer.
enum SequentialGets: Benchmark {
    static let name = "sequential"

    static func run(_ options: Options) throws -> [Row] {
        let count = options.quick ? 200 : 1000
        let url = try options.url(ServedFiles.small)
        let figures = try Driver.alternate(rounds: options.rounds) { variant in
            try Driver.run(count: count, window: 1, url: url, fetch: variant.fetch).requestsPerSecond
        }
        var row = Row(
            "1 KiB GETs, sequential (\(count))", unit: "req/s", raw: figures.raw,
            connectionKit: figures.connectionKit, goal: .ratioAtLeast(0.95))
        (row.libcurl, row.libcurlGoal) = (figures.libcurl, .ratioAtLeast(3))
        (row.curl, row.wrk) = try ReferenceTools.measure(window: 1, count: count, options)
        return [row]
    }
}
