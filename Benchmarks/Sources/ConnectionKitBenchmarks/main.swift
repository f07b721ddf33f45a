import ConnectionKit
import Foundation

// ConnectionKitBenchmarks: raw URLSession against ConnectionKit, row by row (see docs/benchmarks.md).
// Run through Benchmarks/run.sh, which starts nginx and passes --base-url and --work.
//
//   ConnectionKitBenchmarks run [--quick] [--only NAME] --base-url URL --work DIR   all benchmarks, one table
//   ConnectionKitBenchmarks prepare [--quick] --work DIR                            writes the served files
//   ConnectionKitBenchmarks free-port                                               prints a free loopback port
//   ConnectionKitBenchmarks child-download raw|ck|curl [--quick] --base-url URL --work DIR  (spawned by `run`)
//   ConnectionKitBenchmarks child-slow raw|ck|curl [--quick] --base-url URL --work DIR      (spawned by `run`)

/// Every benchmark, in the order the table shows them.
let benchmarks: [any Benchmark.Type] = [
    SequentialGets.self, ConcurrentGets.self, JSONDecoding.self, CPUPerRequest.self, FileDownload.self,
    SlowConsumer.self, LatencyUnderLoad.self, CancelLatency.self, RegistryOperations.self, CookieLookup.self,
]

func log(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}

@MainActor
func runAll(_ options: Options) throws {
    var rows: [Row] = []
    for benchmark in benchmarks where options.only.map({ benchmark.name.contains($0) }) ?? true {
        log("benchmark: \(benchmark.name)…")
        let start = Driver.now()
        rows += try benchmark.run(options)
        log(String(format: "  done in %.1f s", Driver.now() - start))
    }
    print(Table.render(rows, rounds: options.rounds))
}

let arguments = CommandLine.arguments
do {
    let options = try Options(arguments.dropFirst(2))
    switch arguments.dropFirst().first ?? "run" {
    case "run": try runAll(options)
    case "prepare": try ServedFiles.prepare(options)
    case "free-port": print(try FreePort.pick())
    case "child-download": try FileDownload.child(options)
    case "child-slow": try SlowConsumer.child(options)
    case let other: throw BenchmarkError("unknown subcommand \(other); use run, prepare, free-port")
    }
} catch {
    log("error: \(error)")
    exit(1)
}
