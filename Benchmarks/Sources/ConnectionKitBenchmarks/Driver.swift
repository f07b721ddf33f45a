import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Runs requests and measures them: windows of requests in flight, wall time, CPU time, alternation.
enum Driver {
    /// Seconds since an arbitrary origin, monotonic.
    static func now() -> Double {
        Double(DispatchTime.now().uptimeNanoseconds) / 1e9
    }

    /// User plus system CPU seconds this process has used so far (every thread).
    static func cpuSeconds() -> Double {
        let times = cpuTimes()
        return times.user + times.system
    }

    /// Voluntary plus involuntary context switches of this process so far (every thread): each queue
    /// hop that wakes a sleeping thread costs at least one.
    static func contextSwitches() -> Int {
        var usage = rusage()
        #if canImport(Glibc)
            getrusage(RUSAGE_SELF.rawValue, &usage)
        #else
            getrusage(RUSAGE_SELF, &usage)
        #endif
        return usage.ru_nvcsw + usage.ru_nivcsw
    }

    /// User plus system CPU seconds of this process's children that have ended and been waited for.
    static func childrenCPUSeconds() -> Double {
        let times = cpuTimes(children: true)
        return times.user + times.system
    }

    /// User and system CPU seconds this process has used so far (every thread), or with `children`,
    /// those of its children that have ended and been waited for.
    static func cpuTimes(children: Bool = false) -> (user: Double, system: Double) {
        var usage = rusage()
        #if canImport(Glibc)
            getrusage(children ? RUSAGE_CHILDREN.rawValue : RUSAGE_SELF.rawValue, &usage)
        #else
            getrusage(children ? RUSAGE_CHILDREN : RUSAGE_SELF, &usage)
        #endif
        let user = Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
        let system = Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
        return (user, system)
    }

    /// Waits (at most `limit` seconds) until this process stops using CPU: until a 100 ms window costs
    /// under 5 ms of CPU. URLSession keeps working after the last handler ran (tearing down cancelled
    /// tasks, closing connections); the next measurement must not pay for the previous one.
    static func quiesce(limit: Double = 60) {
        let deadline = now() + limit
        while now() < deadline {
            let before = cpuSeconds()
            Thread.sleep(forTimeInterval: 0.1)
            if cpuSeconds() - before < 0.005 { return }
        }
    }

    /// What one windowed run took.
    struct Timing {
        let wallSeconds: Double
        let cpuSeconds: Double
        /// The kernel's part of `cpuSeconds` (thread wake-ups, sockets, files).
        let systemSeconds: Double
        let contextSwitches: Int
        let count: Int
        /// Each request's latency, from its fetch being called to its completion, in completion order.
        let latencies: [Double]
        var requestsPerSecond: Double { Double(count) / wallSeconds }
        var cpuMicrosecondsPerRequest: Double { cpuSeconds / Double(count) * 1e6 }
        var systemMicrosecondsPerRequest: Double { systemSeconds / Double(count) * 1e6 }
        var contextSwitchesPerRequest: Double { Double(contextSwitches) / Double(count) }

        /// The latency that `fraction` of the requests did not exceed, in milliseconds (nearest rank).
        func latencyMilliseconds(percentile fraction: Double) -> Double? {
            Row.percentile(latencies, fraction).map { $0 * 1000 }
        }
    }

    /// Fetches `url` `count` times with at most `window` requests in flight: each completion starts the
    /// next one. Throws on the first failed request, or when the run takes longer than `timeout`.
    static func run(count: Int, window: Int, url: URL, fetch: @escaping Fetch, timeout: Double = 300) throws -> Timing {
        struct Progress {
            var started = 0
            var finished = 0
            var failure: (any Error)?
            var latencies: [Double] = []
        }
        var initial = Progress()
        // Reserved up front so that recording a latency never reallocates inside the measurement.
        initial.latencies.reserveCapacity(count)
        let progress = Locked(initial)
        let allDone = DispatchSemaphore(value: 0)

        // A recursive local closure cannot be @Sendable; a small box holds the launcher instead.
        final class Launcher: @unchecked Sendable {
            // Safe: `launch` is set once, before the first request starts, and only read afterwards.
            var launch: @Sendable () -> Void = {}
        }
        let launcher = Launcher()
        launcher.launch = { [launcher] in
            let mayStart = progress.withLock { state -> Bool in
                guard state.started < count, state.failure == nil else { return false }
                state.started += 1
                return true
            }
            guard mayStart else { return }
            let started = now()
            fetch(url) { result in
                let ended = now()
                let (finishedAll, failed) = progress.withLock { state -> (Bool, Bool) in
                    state.finished += 1
                    state.latencies.append(ended - started)
                    if case .failure(let error) = result, state.failure == nil { state.failure = error }
                    return (state.finished == count, state.failure != nil)
                }
                if finishedAll || failed {
                    allDone.signal()
                } else {
                    launcher.launch()
                }
            }
        }

        let wallStart = now()
        let cpuStart = cpuTimes()
        let switchesStart = contextSwitches()
        for _ in 0..<min(window, count) { launcher.launch() }
        guard allDone.wait(timeout: .now() + timeout) == .success else {
            throw BenchmarkError("\(count) requests to \(url.path) did not finish within \(Int(timeout)) s")
        }
        let cpuEnd = cpuTimes()
        let timing = Timing(
            wallSeconds: now() - wallStart,
            cpuSeconds: (cpuEnd.user + cpuEnd.system) - (cpuStart.user + cpuStart.system),
            systemSeconds: cpuEnd.system - cpuStart.system, contextSwitches: contextSwitches() - switchesStart,
            count: count, latencies: progress.withLock { $0.latencies })
        if let failure = progress.withLock({ $0.failure }) {
            throw BenchmarkError("a request to \(url.path) failed: \(failure)")
        }
        launcher.launch = {}
        return timing
    }

    /// Each variant's figures, in round order.
    struct Figures {
        var values: [Variant: [Double]] = [:]
        var raw: [Double] { values[.raw] ?? [] }
        var connectionKit: [Double] { values[.connectionKit] ?? [] }
        var libcurl: [Double] { values[.libcurl] ?? [] }
    }

    /// Measures the variants alternately (warm-up of each, then raw, ConnectionKit, ConnectionKit on
    /// libcurl, raw…) so that machine noise lands on all of them.
    static func alternate(
        rounds: Int, warmUp: Bool = true, variants: [Variant] = Variant.measured, _ measure: (Variant) throws -> Double
    ) throws -> Figures {
        let variants = variants.filter(Variant.measured.contains)
        if warmUp {
            for variant in variants { _ = try measure(variant) }
        }
        var figures = Figures()
        for _ in 0..<rounds {
            for variant in variants { figures.values[variant, default: []].append(try measure(variant)) }
        }
        return figures
    }
}
