import Foundation

/// The machine's ceiling for the small-GET rows: the same requests with `curl` (one process, keep-alive,
/// `--parallel` for the windows) and `wrk` (fixed duration, one connection per request in flight); and
/// for the large file, `curl` saving it to a file. They run as subprocesses; a missing tool leaves its
/// cell empty.
enum ReferenceTools {
    /// Median requests per second over `rounds` runs of each tool, `window` requests in flight.
    static func measure(window: Int, count: Int, _ options: Options) throws -> (curl: Double?, wrk: Double?) {
        let url = try options.url(ServedFiles.small).absoluteString
        var curl: [Double] = []
        var wrk: [Double] = []
        for _ in 0..<min(options.rounds, 3) {
            let start = Driver.now()
            if (try? run(curlGets(url, window: window, count: count))) != nil {
                curl.append(Double(count) / (Driver.now() - start))
            }
            let seconds = options.quick ? 1 : 2
            let threads = window > 1 ? 2 : 1
            if let output = try? run(["wrk", "-t\(threads)", "-c\(window)", "-d\(seconds)s", url]),
                let line = output.split(separator: "\n").first(where: { $0.hasPrefix("Requests/sec:") }),
                let rate = line.split(separator: " ").last.flatMap({ Double($0) })
            {
                wrk.append(rate)
            }
        }
        return (Row.median(curl), Row.median(wrk))
    }

    /// Median CPU microseconds (user + system) the `curl` CLI spends per small GET, `window` in flight:
    /// libcurl's own cost with nothing above it, the floor of any client built on it. `nil` when curl is
    /// missing or fails.
    static func cpuPerRequest(window: Int, count: Int, _ options: Options) throws -> Double? {
        let url = try options.url(ServedFiles.small).absoluteString
        let arguments = curlGets(url, window: window, count: count)
        var figures: [Double] = []
        for _ in 0..<min(options.rounds, 3) {
            let before = Driver.childrenCPUSeconds()
            guard (try? run(arguments)) != nil else { return nil }
            figures.append((Driver.childrenCPUSeconds() - before) / Double(count) * 1e6)
        }
        return Row.median(figures)
    }

    /// The row of CPU microseconds per GET that a request-rate row's rounds measured (`figures`, each
    /// variant's list with its warm-up first, which is left out), with the `curl` CLI's own beside them.
    static func cpuRow(
        _ figures: [Variant: [Double]], label: String, window: Int, count: Int, _ options: Options
    ) throws -> Row {
        func rounds(_ variant: Variant) -> [Double] { Array((figures[variant] ?? []).suffix(options.rounds)) }
        var row = Row(
            "  CPU per GET, \(label)", unit: "µs CPU", raw: rounds(.raw), connectionKit: rounds(.connectionKit),
            goal: .none)
        row.libcurl = rounds(.libcurl)
        row.curl = try cpuPerRequest(window: window, count: count, options)
        return row
    }

    /// The `curl` command line for `count` GETs of `url` (a distinct query each), `window` in flight.
    private static func curlGets(_ url: String, window: Int, count: Int) -> [String] {
        var arguments = ["curl", "--silent", "--fail", "--output", "/dev/null"]
        if window > 1 { arguments += ["--parallel", "--parallel-max", "\(window)"] }
        arguments.append("\(url)?[1-\(count)]")
        return arguments
    }

    /// MB/s of `curl -s -o <file> <url>` saving the large file into the downloads folder (one round; the
    /// file is removed afterwards), or `nil` when curl is missing or fails, or the size is wrong.
    static func download(_ options: Options) throws -> Double? {
        let url = try options.url(ServedFiles.big).absoluteString
        let destination = options.downloadsDirectory.appendingPathComponent("big-curl-cli.bin")
        try? FileManager.default.removeItem(at: destination)
        defer { try? FileManager.default.removeItem(at: destination) }
        let start = Driver.now()
        guard (try? run(["curl", "--silent", "--fail", "--output", destination.path, url])) != nil else { return nil }
        let seconds = Driver.now() - start
        let bytes = (try? FileManager.default.attributesOfItem(atPath: destination.path)[.size] as? Int64) ?? nil
        guard bytes == options.bigFileBytes else {
            throw BenchmarkError("curl saved \(bytes ?? 0) bytes, expected \(options.bigFileBytes)")
        }
        return Double(options.bigFileBytes) / 1e6 / seconds
    }

    /// A row under `row` (a rate with its `curl` cell): each column's median over the curl CLI's, the
    /// libcurl column held to at least `goal`. Empty cells when curl did not run.
    static func overCurl(_ row: Row, label: String, goal: Double) -> Row {
        func share(_ median: Double?) -> [Double] {
            guard let median, let curl = row.curl, curl > 0 else { return [] }
            return [median / curl]
        }
        var ratio = Row(
            "  / curl CLI, \(label)", unit: "× curl", raw: share(row.rawMedian),
            connectionKit: share(row.connectionKitMedian), goal: .none)
        (ratio.libcurl, ratio.libcurlGoal) = (share(row.libcurlMedian), .connectionKitAtLeast(goal))
        return ratio
    }

    /// Runs a tool found on `PATH`; returns its output, or throws when it is missing or fails.
    private static func run(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw BenchmarkError("\(arguments[0]) exited with \(process.terminationStatus)")
        }
        return String(decoding: data, as: UTF8.self)
    }
}
