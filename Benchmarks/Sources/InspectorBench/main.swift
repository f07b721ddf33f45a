// InspectorBench: what the registry's history and statistics cost. Prints figures; not a test.
//
// Against an in-process TestServer (1 KiB answers), alternating rounds of the same workload with
// recording off (history capacity 0, statistics off) and on (the defaults: 1,000 runs, statistics on):
// throughput at 16 in flight (median of each round's on/off ratio), CPU per request (the difference is the recording cost), and the
// resident memory a full history of 1,000 runs adds. Build in release:
//   swift run -c release --package-path Benchmarks InspectorBench [--quick]
// The page's time to first render with 10,000 live requests is measured in a browser by
// scripts/inspector-browser-test.py --first-render 10000.
import ConnectionKit
import ConnectionKitTesting
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A GET with the headers a typical API call has.
final class ItemFetch: ConnectionRequest<Data>, @unchecked Sendable {
    // Safe: `target` is a `let` set in init.
    let target: URL
    init(_ target: URL, queue: DispatchQueue) {
        self.target = target
        super.init()
        callbackQueue = queue
    }
    override var url: URL? { target }
    override var requestHeaderFields: [String: String] {
        ["Authorization": "Bearer 0123456789abcdef", "Accept": "application/json", "X-Client": "InspectorBench/1"]
    }
}

let quick = CommandLine.arguments.contains("--quick")
let count = quick ? 500 : 2000
let rounds = quick ? 1 : 15
let window = 16
let queue = DispatchQueue(label: "InspectorBench.callbacks")

func now() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }

func cpuSeconds() -> Double {
    var usage = rusage()
    #if canImport(Glibc)
        getrusage(RUSAGE_SELF.rawValue, &usage)
    #else
        getrusage(RUSAGE_SELF, &usage)
    #endif
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
        + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

/// Resident set size in bytes, from /proc/self/statm.
func residentBytes() -> Int {
    let text = (try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8)) ?? ""
    let pages = text.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
    return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
}

func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

/// How far one run has come, behind a lock.
final class RunProgress: @unchecked Sendable {
    // Safe: `started` and `finished` are only touched while `lock` is held.
    private let lock = NSLock()
    private var started = 0
    private var finished = 0
    let total: Int
    let done = DispatchSemaphore(value: 0)
    init(total: Int) { self.total = total }

    /// Whether another request may start (and counts it).
    func claimStart() -> Bool {
        lock.withLock {
            guard started < total else { return false }
            started += 1
            return true
        }
    }

    /// Counts an ending; returns whether it was the last.
    func finishOne() -> Bool {
        lock.withLock {
            finished += 1
            return finished == total
        }
    }
}

/// Runs `total` requests with `window` in flight; returns (requests per second, CPU µs per request).
func run(_ total: Int, url: URL) -> (rate: Double, cpu: Double) {
    let progress = RunProgress(total: total)
    final class Box: @unchecked Sendable {
        // Safe: set once before the first start, read afterwards.
        var launch: @Sendable () -> Void = {}
    }
    let box = Box()
    box.launch = { [box] in
        guard progress.claimStart() else { return }
        let request = ItemFetch(url, queue: queue)
        let next: @Sendable () -> Void = {
            if progress.finishOne() { progress.done.signal() } else { box.launch() }
        }
        request.completionHandler = { _ in next() }
        request.failureHandler = { error in
            FileHandle.standardError.write(Data("request failed: \(error)\n".utf8))
            next()
        }
        request.start()
    }
    let wallStart = now()
    let cpuStart = cpuSeconds()
    for _ in 0..<min(window, total) { box.launch() }
    progress.done.wait()
    let wall = now() - wallStart
    let cpu = cpuSeconds() - cpuStart
    box.launch = {}
    return (Double(total) / wall, cpu / Double(total) * 1e6)
}

/// CPU seconds the calling thread has used.
func threadCPUSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

/// The thread CPU µs of one `cancel()` of a live request (sent, no answer yet): the ending, and with
/// it the recording, runs on the cancelling thread before `cancel()` returns.
func cancelCost(_ total: Int, url: URL) -> Double {
    let ended = DispatchGroup()
    let requests = (0..<total).map { _ in
        let request = ItemFetch(url, queue: queue)
        ended.enter()
        request.failureHandler = { _ in ended.leave() }
        return request
    }
    requests.forEach { $0.start() }
    let start = threadCPUSeconds()
    requests.forEach { $0.cancel() }
    let cost = (threadCPUSeconds() - start) / Double(total) * 1e6
    ended.wait()
    Thread.sleep(forTimeInterval: 0.2)
    return cost
}

func setRecording(_ on: Bool) {
    ConnectionRegistry.shared.historyCapacity = on ? 1000 : 0
    ConnectionRegistry.shared.isRecordingStatistics = on
}

let server = try TestServer.started()
server.route("/item") { _ in
    TestResponse(
        headers: [TestHeader("Content-Type", "application/json")], body: .data(Data(repeating: 120, count: 1024)))
}
server.route("/hang") { _ in TestResponse(fault: .neverRespond) }
let url = server.url("/item?id=42")
let hangURL = server.url("/hang?id=42")

// Warm-up of both, then alternating rounds.
for on in [false, true] {
    setRecording(on)
    _ = run(count / 2, url: url)
}
var off: [(rate: Double, cpu: Double)] = []
var on: [(rate: Double, cpu: Double)] = []
for _ in 0..<rounds {
    setRecording(false)
    off.append(run(count, url: url))
    setRecording(true)
    on.append(run(count, url: url))
}
let rateOff = median(off.map(\.rate))
let rateOn = median(on.map(\.rate))
let cpuOff = median(off.map(\.cpu))
let cpuOn = median(on.map(\.cpu))
print("InspectorBench: \(count) GETs of 1 KiB per round, \(window) in flight, \(rounds) alternating rounds (medians)")
print(String(format: "  throughput, recording off:        %8.0f req/s", rateOff))
let pairedRatio = median(zip(on, off).map { $0.0.rate / $0.1.rate })
print(
    String(format: "  throughput, history+statistics:   %8.0f req/s   (%.3f× of the medians)", rateOn, rateOn / rateOff)
)
print(String(format: "  throughput ratio on/off, median of the rounds' pairs: %.3f×", pairedRatio))
print(String(format: "  CPU per request, off / on:        %8.1f / %.1f µs", cpuOff, cpuOn))
print(String(format: "  recording cost (CPU on − off):    %8.1f µs per request", cpuOn - cpuOff))
print("  rounds off (req/s): " + off.map { String(format: "%.0f", $0.rate) }.joined(separator: " "))
print("  rounds on  (req/s): " + on.map { String(format: "%.0f", $0.rate) }.joined(separator: " "))

// The recording cost alone, on the thread that ends the runs: cancelling live requests.
let cancels = quick ? 200 : 1000
var cancelOff: [Double] = []
var cancelOn: [Double] = []
for round in 0..<(quick ? 2 : 12) {
    setRecording(false)
    let off = cancelCost(cancels, url: hangURL)
    setRecording(true)
    let on = cancelCost(cancels, url: hangURL)
    // The first round warms both up.
    if round > 0 {
        cancelOff.append(off)
        cancelOn.append(on)
    }
}
print(
    String(
        format: "  cancel() of a live request (%d per round, thread CPU, medians): %.1f µs off, %.1f µs on: "
            + "recording %.1f µs per run", cancels, median(cancelOff), median(cancelOn),
        median(cancelOn) - median(cancelOff)))

// Memory: the same 1,000 runs with the history off, then on; the resident growth is the history's.
setRecording(false)
_ = run(1000, url: url)
Thread.sleep(forTimeInterval: 0.5)
let before = residentBytes()
setRecording(true)
ConnectionRegistry.shared.clearHistory()
_ = run(1000, url: url)
Thread.sleep(forTimeInterval: 0.5)
let after = residentBytes()
let kept = ConnectionRegistry.shared.history()
let json = (try? JSONEncoder().encode(kept))?.count ?? 0
print(
    String(
        format: "  history of %d runs: resident +%.0f KiB (%.2f KiB per run); as JSON %.0f KiB",
        kept.count, Double(after - before) / 1024, Double(after - before) / 1024 / Double(max(1, kept.count)),
        Double(json) / 1024))
server.stop()
