import Foundation

/// Small (1 KiB) GETs with 16 and then 64 in flight: how each layer keeps URLSession busy.
enum ConcurrentGets: Benchmark {
    static let name = "concurrent"

    static func run(_ options: Options) throws -> [Row] {
        let count = options.quick ? 300 : 2000
        let url = try options.url(ServedFiles.small)
        return try [16, 64].map { window in
            let figures = try Driver.alternate(rounds: options.rounds) { variant in
                try Driver.run(count: count, window: window, url: url, fetch: variant.fetch).requestsPerSecond
            }
            var row = Row(
                "1 KiB GETs, \(window) in flight (\(count))", unit: "req/s", raw: figures.raw,
                connectionKit: figures.connectionKit, goal: .ratioAtLeast(0.95))
            (row.libcurl, row.libcurlGoal) = (figures.libcurl, .ratioAtLeast(8))
            (row.curl, row.wrk) = try ReferenceTools.measure(window: window, count: count, options)
            return row
        }
    }
}
