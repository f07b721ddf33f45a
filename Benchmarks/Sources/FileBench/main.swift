// FileBench: figures for saving to file (issue 4). A standalone program: build it in release and run it.
//
//   FileBench [--mib 1024] [--rounds 3] [--small-gets 30] [--base-url http://127.0.0.1:8080]
//
// With no --base-url it serves a generated body of --mib MiB from an in-process TestServer on
// loopback (`/big`, plus `/small` for the latency figure); with --base-url the server must serve
// `/big` (the large body) and `/small` (a few bytes). Prints, in one run:
//   1. peak RSS (VmHWM) of a child process that only saves the body with DownloadRequest (goal < 64 MiB),
//      and of one that saves it with raw URLSession downloadTask, for reference;
//   2. to-file throughput, ConnectionKit DownloadRequest vs raw URLSession downloadTask (then a rename
//      into place), alternating A/B for --rounds rounds, and the ratio of medians (goal >= 0.9);
//   3. how long cancel() of a running download takes to end it: from the call to the failure
//      handler (goal < 100 ms median), and that nothing is left on disk;
//   4. the latency of small GETs made one after another while the large download runs (goal < 50 ms median).
//
// Wiring: an `.executableTarget(name: "FileBench", dependencies: ConnectionKit, ConnectionKitTesting)`
// in Benchmarks/Package.swift. Until then, a throwaway package whose Sources/FileBench links to this
// folder and depends on the root by path runs it: `swift build -c release && .build/release/FileBench`.
import ConnectionKit
import ConnectionKitTesting
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// MARK: - Options

struct Options {
    var mebibytes: Int64 = 1_024
    var rounds = 3
    var smallGets = 30
    var baseURL: URL?
    /// Runs only section 4 (for investigating latency).
    var onlyLatency = false
    var child: (variant: String, url: URL, destination: URL)?

    init(_ arguments: [String]) {
        var iterator = arguments.dropFirst().makeIterator()
        while let argument = iterator.next() {
            switch argument {
            case "--mib": mebibytes = Int64(iterator.next() ?? "") ?? mebibytes
            case "--rounds": rounds = Int(iterator.next() ?? "") ?? rounds
            case "--small-gets": smallGets = Int(iterator.next() ?? "") ?? smallGets
            case "--base-url": baseURL = iterator.next().flatMap(URL.init(string:))
            case "--only-latency": onlyLatency = true
            case "child":
                if let variant = iterator.next(), let url = iterator.next().flatMap(URL.init(string:)),
                    let path = iterator.next()
                {
                    child = (variant, url, URL(fileURLWithPath: path))
                }
            default:
                print("unknown argument \(argument)")
            }
        }
    }
}

// MARK: - Helpers

func now() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return .nan }
    return sorted.count % 2 == 1
        ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

func percentile(_ values: [Double], _ p: Double) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return .nan }
    return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))]
}

func format(_ value: Double, _ digits: Int = 1) -> String { String(format: "%.\(digits)f", value) }

/// Peak resident memory of this process so far, in MiB (`VmHWM`).
func peakResidentMiB() -> Double {
    let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }) else { return .nan }
    let kilobytes = line.split(separator: " ").compactMap { Double($0) }.first ?? .nan
    return kilobytes / 1_024
}

let callbacks = DispatchQueue(label: "FileBench.callbacks")

/// Saves `url` to `destination` with ConnectionKit; returns seconds.
func saveWithConnectionKit(_ url: URL, to destination: URL) async throws -> Double {
    let download = DownloadRequest(from: url, to: destination)
    download.callbackQueue = callbacks
    let start = now()
    _ = try await download.value()
    return now() - start
}

/// Saves `url` to `destination` with URLSession's downloadTask, moving the file into place in the
/// completion handler (URLSession leaves it in the temporary folder on Linux); returns seconds.
func saveWithURLSession(_ url: URL, to destination: URL, session: URLSession) async throws -> Double {
    let start = now()
    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
        let task = session.downloadTask(with: url) { location, _, error in
            if let error {
                continuation.resume(throwing: error)
                return
            }
            guard let location else {
                continuation.resume(throwing: URLError(.badServerResponse))
                return
            }
            do {
                try? FileManager.default.removeItem(at: destination)
                try FileManager.default.moveItem(at: location, to: destination)
                continuation.resume()
            } catch {
                continuation.resume(throwing: error)
            }
        }
        task.resume()
    }
    return now() - start
}

/// A plain data-task delegate that writes each chunk to a file: the floor for a streamed download.
final class StreamingWriter: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // Safe: `handle` is only used on the session's serial delegate queue; `done` is signalled once.
    let handle: FileHandle
    let done = DispatchSemaphore(value: 0)

    init(handle: FileHandle) { self.handle = handle }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        handle.write(data)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        done.signal()
    }
}

func saveWithDataDelegate(_ url: URL, to destination: URL) throws -> Double {
    _ = FileManager.default.createFile(atPath: destination.path, contents: nil)
    let writer = StreamingWriter(handle: try FileHandle(forWritingTo: destination))
    let queue = OperationQueue()
    queue.maxConcurrentOperationCount = 1
    let session = URLSession(configuration: .ephemeral, delegate: writer, delegateQueue: queue)
    let start = now()
    session.dataTask(with: url).resume()
    writer.done.wait()
    try writer.handle.close()
    return now() - start
}

// MARK: - Child: one download, then its peak memory

let options = Options(CommandLine.arguments)

if let child = options.child {
    do {
        let seconds: Double
        if child.variant == "rawdelegate" {
            seconds = try saveWithDataDelegate(child.url, to: child.destination)
        } else if child.variant == "raw" {
            seconds = try await saveWithURLSession(
                child.url, to: child.destination, session: URLSession(configuration: .ephemeral))
        } else {
            seconds = try await saveWithConnectionKit(child.url, to: child.destination)
        }
        let size =
            (try FileManager.default.attributesOfItem(atPath: child.destination.path)[.size] as? NSNumber)?
            .int64Value ?? 0
        try? FileManager.default.removeItem(at: child.destination)
        print("RESULT \(seconds) \(size) \(peakResidentMiB())")
        exit(0)
    } catch {
        print("child failed: \(error)")
        exit(1)
    }
}

// MARK: - Parent

let length = options.mebibytes * 1_024 * 1_024
let server = TestServer()
let baseURL: URL
if let given = options.baseURL {
    baseURL = given
} else {
    try server.start()
    server.route("GET", "/big") { _ in TestResponse(body: .generated(length: length, seed: 1)) }
    server.route("GET", "/small") { _ in .text("ok") }
    baseURL = server.baseURL
}
let bigURL = baseURL.appendingPathComponent("big")
let smallURL = baseURL.appendingPathComponent("small")
let work = FileManager.default.temporaryDirectory.appendingPathComponent("filebench-\(UUID().uuidString.prefix(8))")
try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: work) }
print(
    "FileBench: \(options.mebibytes) MiB from \(bigURL.absoluteString), \(options.rounds) rounds, work folder \(work.path)"
)

// 1. Peak RSS, each in a child process of its own.
func runChild(_ variant: String) throws -> (seconds: Double, bytes: Int64, peak: Double) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    process.arguments = [
        "child", variant, bigURL.absoluteString, work.appendingPathComponent("child-\(variant).bin").path,
    ]
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    guard let line = text.split(separator: "\n").last(where: { $0.hasPrefix("RESULT ") }) else {
        throw URLError(.unknown, userInfo: [NSLocalizedDescriptionKey: "child \(variant) failed: \(text)"])
    }
    let fields = line.split(separator: " ").dropFirst().compactMap { Double($0) }
    return (fields[0], Int64(fields[1]), fields[2])
}

if !options.onlyLatency {
    let kitChild = try runChild("ck")
    let rawChild = try runChild("raw")
    let delegateChild = try runChild("rawdelegate")
    print("")
    print("1. Peak RSS while saving \(options.mebibytes) MiB to file (child process, VmHWM)")
    print("   ConnectionKit DownloadRequest: \(format(kitChild.peak)) MiB (goal < 64), \(kitChild.bytes) bytes saved")
    print("   raw URLSession downloadTask:   \(format(rawChild.peak)) MiB (reference)")
    print("   raw URLSession dataTask + delegate writing each chunk: \(format(delegateChild.peak)) MiB (reference)")

    // 2. Throughput, alternating A/B.
    let session = URLSession(configuration: .ephemeral)
    var kitRates: [Double] = []
    var rawRates: [Double] = []
    let megabytes = Double(length) / 1e6
    for round in 1...options.rounds {
        let order = round % 2 == 1 ? ["ck", "raw"] : ["raw", "ck"]
        for variant in order {
            let destination = work.appendingPathComponent("throughput-\(variant).bin")
            if variant == "ck" {
                kitRates.append(megabytes / (try await saveWithConnectionKit(bigURL, to: destination)))
            } else {
                rawRates.append(megabytes / (try await saveWithURLSession(bigURL, to: destination, session: session)))
            }
            try? FileManager.default.removeItem(at: destination)
        }
    }
    let ratio = median(kitRates) / median(rawRates)
    print("")
    print("2. To-file throughput, \(options.rounds) rounds alternating A/B (MB/s)")
    print("   ConnectionKit DownloadRequest: median \(format(median(kitRates))) \(kitRates.map { format($0) })")
    print("   raw URLSession downloadTask:   median \(format(median(rawRates))) \(rawRates.map { format($0) })")
    print("   ratio ConnectionKit / raw: \(format(ratio, 2)) (goal >= 0.9)")

    // 3. Cancel of a running download.
    var cancelEnds: [Double] = []
    var cancelReturns: [Double] = []
    var leftovers = 0
    for _ in 0..<5 {
        let destination = work.appendingPathComponent("cancel.bin")
        let download = DownloadRequest(from: bigURL, to: destination)
        download.callbackQueue = callbacks
        let (reports, reportsContinuation) = AsyncStream.makeStream(of: Int64.self)
        download.progressHandler = { reportsContinuation.yield($0.completedBytes) }
        let (ended, endedContinuation) = AsyncStream.makeStream(of: Double.self)
        download.failureHandler = { _ in
            endedContinuation.yield(now())
            endedContinuation.finish()
        }
        download.completionHandler = { _ in endedContinuation.finish() }
        download.start()
        for await completed in reports where completed >= min(length / 4, 200_000_000) {
            break
        }
        let start = now()
        download.cancel()
        cancelReturns.append(now() - start)
        var endedAt: Double?
        for await time in ended { endedAt = time }
        cancelEnds.append(((endedAt ?? .nan) - start) * 1_000)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: work.path)) ?? []
        leftovers += names.filter { $0.contains("cancel.bin") }.count
    }
    print("")
    print("3. cancel() of a running \(options.mebibytes) MiB download, 5 runs (ms)")
    print(
        "   cancel() to failure handler: median \(format(median(cancelEnds), 2)), max \(format(cancelEnds.max() ?? .nan, 2)) (goal < 100)"
    )
    print("   cancel() call returns in:    median \(format(median(cancelReturns) * 1_000, 3))")
    print("   files left behind: \(leftovers)")
}

// 4. Small GETs while the large download runs.
let background = DownloadRequest(from: bigURL, to: work.appendingPathComponent("background.bin"))
background.callbackQueue = callbacks
let (started, startedContinuation) = AsyncStream.makeStream(of: Int64.self)
background.progressHandler = { startedContinuation.yield($0.completedBytes) }
let backgroundDone = Task { try await background.value() }
for await completed in started where completed > 0 {
    break
}
var latencies: [Double] = []
let connectionsBefore = server.acceptedConnectionCount
for _ in 0..<options.smallGets where background.isActive {
    let small = BasicConnectionRequest(request: URLRequest(url: smallURL))
    small.callbackQueue = callbacks
    let start = now()
    _ = try await small.value()
    latencies.append((now() - start) * 1_000)
}
let stillRunning = background.isActive
let connectionsDuring = server.acceptedConnectionCount - connectionsBefore
_ = try await backgroundDone.value

// Where the time goes: the same GETs through raw URLSession on a session of its own, while a
// ConnectionKit download runs (on Linux every session shares one serial libcurl queue).
let rawBackground = DownloadRequest(from: bigURL, to: work.appendingPathComponent("background-2.bin"))
rawBackground.callbackQueue = callbacks
let (rawStarted, rawStartedContinuation) = AsyncStream.makeStream(of: Int64.self)
rawBackground.progressHandler = { rawStartedContinuation.yield($0.completedBytes) }
let rawBackgroundDone = Task { try await rawBackground.value() }
for await completed in rawStarted where completed > 0 {
    break
}
let otherSession = URLSession(configuration: .ephemeral)
var rawLatencies: [Double] = []
for _ in 0..<options.smallGets where rawBackground.isActive {
    let start = now()
    _ = try await otherSession.data(from: smallURL)
    rawLatencies.append((now() - start) * 1_000)
}
_ = try await rawBackgroundDone.value
var idle: [Double] = []
for _ in 0..<10 {
    let small = BasicConnectionRequest(request: URLRequest(url: smallURL))
    small.callbackQueue = callbacks
    let start = now()
    _ = try await small.value()
    idle.append((now() - start) * 1_000)
}
print("")
print("4. Small GET latency while a \(options.mebibytes) MiB download runs (ms), \(latencies.count) GETs")
print(
    "   median \(format(median(latencies), 2)), p90 \(format(percentile(latencies, 0.9), 2)), max \(format(latencies.max() ?? .nan, 2)) (goal: median < 50)"
)
print("   download still running after the last GET: \(stillRunning); new connections: \(connectionsDuring)")
print("   idle baseline: median \(format(median(idle), 2))")
print(
    "   raw URLSession data(from:) on another session, same load: median \(format(median(rawLatencies), 2)), "
        + "p90 \(format(percentile(rawLatencies, 0.9), 2)), max \(format(rawLatencies.max() ?? .nan, 2)), "
        + "\(rawLatencies.count) GETs")
server.stop()
