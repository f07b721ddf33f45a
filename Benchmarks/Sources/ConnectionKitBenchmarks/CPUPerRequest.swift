import Foundation

/// CPU time (user + system, all threads, from getrusage) per small GET, 16 in flight: what a layer costs
/// beyond waiting. The process does nothing else meanwhile, so the difference is the layer's own work.
enum CPUPerRequest: Benchmark {
    static let name = "cpu"

    static func run(_ options: Options) throws -> [Row] {
        let count = options.quick ? 300 : 2000
        let url = try options.url(ServedFiles.small)
        var system: [Variant: [Double]] = [:]
        var switches: [Variant: [Double]] = [:]
        let figures = try Driver.alternate(rounds: options.rounds) { variant in
            let timing = try Driver.run(count: count, window: 16, url: url, fetch: variant.fetch)
            system[variant, default: []].append(timing.systemMicrosecondsPerRequest)
            switches[variant, default: []].append(timing.contextSwitchesPerRequest)
            return timing.cpuMicrosecondsPerRequest
        }
        return [
            Row(
                "CPU per 1 KiB GET, 16 in flight", unit: "µs CPU", raw: figures.raw,
                connectionKit: figures.connectionKit, goal: .ratioAtMost(1.10)),
            Row(
                "  of which system (kernel) time", unit: "µs CPU",
                raw: Array((system[.raw] ?? []).suffix(options.rounds)),
                connectionKit: Array((system[.connectionKit] ?? []).suffix(options.rounds)), goal: .none),
            Row(
                "  context switches per GET", unit: "switches",
                raw: Array((switches[.raw] ?? []).suffix(options.rounds)),
                connectionKit: Array((switches[.connectionKit] ?? []).suffix(options.rounds)), goal: .none),
        ]
    }
}
