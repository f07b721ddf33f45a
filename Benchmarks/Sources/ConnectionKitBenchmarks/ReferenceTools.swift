import Foundation

/// The machine's ceiling for the small-GET rows: the same requests with `curl` (one process, keep-alive,
/// `--parallel` for the windows) and `wrk` (fixed duration, one connection per request in flight).
/// They run as subprocesses; a missing tool leaves its cell empty.
enum ReferenceTools {
    /// Median requests per second over `rounds` runs of each tool, `window` requests in flight.
    static func measure(window: Int, count: Int, _ options: Options) throws -> (curl: Double?, wrk: Double?) {
        let url = try options.url(ServedFiles.small).absoluteString
        var curl: [Double] = []
        var wrk: [Double] = []
        for _ in 0..<min(options.rounds, 3) {
            var arguments = ["curl", "--silent", "--fail", "--output", "/dev/null"]
            if window > 1 { arguments += ["--parallel", "--parallel-max", "\(window)"] }
            arguments.append("\(url)?[1-\(count)]")
            let start = Driver.now()
            if (try? run(arguments)) != nil {
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
