import Foundation

/// The command line: `ConnectionKitBenchmarks <subcommand> [--base-url URL] [--work DIR] [--quick] [--only NAME]`.
struct Options: Sendable {
    /// The nginx that `run.sh` started, e.g. `http://127.0.0.1:40123`.
    var baseURL = URL(string: "http://127.0.0.1:8080")
    /// `Benchmarks/.work`: served files live in `www/`, downloads land in `downloads/`.
    var workDirectory = URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent(".work")
    /// A short run (small counts, one round, a 64 MiB file instead of 1 GiB) so that CI checks it still works.
    var quick = false
    /// Runs only the benchmarks whose name contains this text.
    var only: String?
    /// Arguments after the subcommand that are not options (e.g. the variant of a child process).
    var positional: [String] = []

    init(_ arguments: ArraySlice<String>) throws {
        var remaining = arguments
        while let argument = remaining.popFirst() {
            switch argument {
            case "--quick":
                quick = true
            case "--base-url":
                guard let text = remaining.popFirst(), let url = URL(string: text) else {
                    throw BenchmarkError("--base-url needs a URL")
                }
                baseURL = url
            case "--work":
                guard let path = remaining.popFirst() else { throw BenchmarkError("--work needs a directory") }
                workDirectory = URL(fileURLWithPath: path)
            case "--only":
                guard let name = remaining.popFirst() else { throw BenchmarkError("--only needs a name") }
                only = name
            default:
                positional.append(argument)
            }
        }
    }

    /// Rounds of A B alternation; each figure is the median over them.
    var rounds: Int { quick ? 1 : 5 }

    /// The large file's size: 1 GiB, or 64 MiB with `--quick`.
    var bigFileBytes: Int64 { quick ? 64 << 20 : 1 << 30 }

    /// "1 GiB" or "64 MiB", for row names.
    var bigFileLabel: String { quick ? "64 MiB" : "1 GiB" }

    var wwwDirectory: URL { workDirectory.appendingPathComponent("www") }
    var downloadsDirectory: URL { workDirectory.appendingPathComponent("downloads") }

    /// The URL of a served file, e.g. `url("/1k.bin")`.
    func url(_ path: String) throws -> URL {
        guard let baseURL, let url = URL(string: path, relativeTo: baseURL)?.absoluteURL else {
            throw BenchmarkError("no base URL for \(path)")
        }
        return url
    }
}
