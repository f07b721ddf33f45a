import Foundation

/// CPU time (user + system, all threads, from getrusage) per small GET, 16 in flight: what a layer costs
/// beyond waiting. The process does nothing else meanwhile, so the difference is the layer's own work. The
/// curl cell is the `curl` CLI's own CPU per GET (its process alone), libcurl with nothing above it.
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
        var cpu = Row(
            "CPU per 1 KiB GET, 16 in flight", unit: "µs CPU", raw: figures.raw,
            connectionKit: figures.connectionKit, goal: .ratioAtMost(1.10))
        (cpu.libcurl, cpu.libcurlGoal) = (figures.libcurl, .ratioAtMost(0.15))
        cpu.curl = try ReferenceTools.cpuPerRequest(window: 16, count: count, options)
        // The warm-up's figure is the first of each list: the rounds are the last ones.
        func rounds(_ values: [Variant: [Double]], _ variant: Variant) -> [Double] {
            Array((values[variant] ?? []).suffix(options.rounds))
        }
        var kernel = Row(
            "  of which system (kernel) time", unit: "µs CPU", raw: rounds(system, .raw),
            connectionKit: rounds(system, .connectionKit), goal: .none)
        kernel.libcurl = rounds(system, .libcurl)
        var switching = Row(
            "  context switches per GET", unit: "switches", raw: rounds(switches, .raw),
            connectionKit: rounds(switches, .connectionKit), goal: .none)
        switching.libcurl = rounds(switches, .libcurl)
        return [cpu, kernel, switching]
    }
}
