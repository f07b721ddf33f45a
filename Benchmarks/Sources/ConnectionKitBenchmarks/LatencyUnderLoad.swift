import Foundation

/// The latency of small GETs while the large file downloads through the same layer. On Linux every
/// URLSession in the process shares one serial work queue, so a fast download can starve small requests;
/// this row shows whether ConnectionKit's download path (a data task streamed to a file) makes that
/// better or worse than URLSession's own download task.
enum LatencyUnderLoad: Benchmark {
    static let name = "latency"

    struct Sample {
        let medianMilliseconds: Double
        let maximumMilliseconds: Double
    }

    static func run(_ options: Options) throws -> [Row] {
        var samples: [Variant: [Sample]] = [:]
        let rounds = min(options.rounds, 3)
        _ = try Driver.alternate(rounds: rounds, warmUp: false) { variant in
            let sample = try measure(variant, options)
            samples[variant, default: []].append(sample)
            return sample.medianMilliseconds
        }
        let raw = samples[.raw] ?? []
        let kit = samples[.connectionKit] ?? []
        let curl = samples[.libcurl] ?? []
        var median = Row(
            "1 KiB GET during \(options.bigFileLabel) download: median", unit: "ms",
            raw: raw.map(\.medianMilliseconds), connectionKit: kit.map(\.medianMilliseconds),
            goal: .ratioAtMost(1.05))
        (median.libcurl, median.libcurlGoal) = (curl.map(\.medianMilliseconds), .connectionKitBelow(5))
        var worst = Row(
            "1 KiB GET during \(options.bigFileLabel) download: worst", unit: "ms",
            raw: raw.map(\.maximumMilliseconds), connectionKit: kit.map(\.maximumMilliseconds), goal: .none)
        worst.libcurl = curl.map(\.maximumMilliseconds)
        return [median, worst]
    }

    /// Starts the download, then sends small GETs one after another until it ends.
    private static func measure(_ variant: Variant, _ options: Options) throws -> Sample {
        let bigURL = try options.url(ServedFiles.big)
        let smallURL = try options.url(ServedFiles.small)
        let destination = options.downloadsDirectory.appendingPathComponent("latency-\(variant.rawValue).bin")
        try? FileManager.default.removeItem(at: destination)
        let finished = Locked<Result<Void, any Error>?>(nil)
        let downloadDone = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let result = Result { try FileDownload.download(bigURL, to: destination, variant: variant, timeout: 600) }
            finished.withLock { $0 = result }
            downloadDone.signal()
        }
        var latencies: [Double] = []
        while finished.withLock({ $0 == nil }) {
            let timing = try Driver.run(count: 1, window: 1, url: smallURL, fetch: variant.fetch, timeout: 600)
            latencies.append(timing.wallSeconds * 1000)
        }
        guard downloadDone.wait(timeout: .now() + 600) == .success else {
            throw BenchmarkError("the download did not end")
        }
        try finished.withLock { $0 }?.get()
        try? FileManager.default.removeItem(at: destination)
        guard let median = Row.median(latencies), let maximum = latencies.max() else {
            throw BenchmarkError("no small GET ran during the download")
        }
        return Sample(medianMilliseconds: median, maximumMilliseconds: maximum)
    }
}
