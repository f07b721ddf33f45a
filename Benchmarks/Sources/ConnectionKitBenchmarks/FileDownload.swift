import ConnectionKit
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The large file saved to disk: throughput, and the peak resident memory of a process that does only
/// that. Peak memory is per process, so each measurement runs in a child process of its own
/// (`ConnectionKitBenchmarks child-download raw|ck`), which reads its `VmHWM` when done.
///
/// Raw: `downloadTask(with:completionHandler:)`, then the file is moved to the destination (on Linux
/// URLSession leaves it in `$TMPDIR`, which `run.sh` points into the work directory so this is a rename).
/// ConnectionKit: `DownloadRequest(from:to:)`. Reference: the `curl` CLI saving the same file into the
/// downloads folder (`curl -s -o <file> <url>`), after each round's last variant.
enum FileDownload: Benchmark {
    static let name = "file"

    /// What a child reports on its last line: `RESULT <seconds> <bytes> <peak MiB>`.
    struct ChildResult {
        let seconds: Double
        let bytes: Int64
        let peakMiB: Double
        var megabytesPerSecond: Double { Double(bytes) / 1e6 / seconds }
    }

    static func run(_ options: Options) throws -> [Row] {
        var results: [Variant: [ChildResult]] = [:]
        var curlCLI: [Double] = []
        let rounds = min(options.rounds, 3)
        _ = try Driver.alternate(rounds: rounds, warmUp: false) { variant in
            let result = try spawnChild(variant, options)
            results[variant, default: []].append(result)
            // The curl CLI takes its turn after the last variant, so that it alternates with them too.
            if variant == Variant.measured.last, let speed = try ReferenceTools.download(options) {
                curlCLI.append(speed)
            }
            return result.seconds
        }
        let raw = results[.raw] ?? []
        let kit = results[.connectionKit] ?? []
        let curl = results[.libcurl] ?? []
        var speed = Row(
            "\(options.bigFileLabel) saved to file", unit: "MB/s", raw: raw.map(\.megabytesPerSecond),
            connectionKit: kit.map(\.megabytesPerSecond), goal: .ratioAtLeast(0.95))
        speed.libcurl = curl.map(\.megabytesPerSecond)
        speed.curl = Row.median(curlCLI)
        var memory = Row(
            "\(options.bigFileLabel) saved to file: peak RSS", unit: "MiB", raw: raw.map(\.peakMiB),
            connectionKit: kit.map(\.peakMiB), goal: .connectionKitBelow(64))
        (memory.libcurl, memory.libcurlGoal) = (curl.map(\.peakMiB), .connectionKitBelow(64))
        return [speed, ReferenceTools.overCurl(speed, label: "\(options.bigFileLabel) saved", goal: 0.9), memory]
    }

    static func spawnChild(_ variant: Variant, _ options: Options, subcommand: String = "child-download") throws
        -> ChildResult
    {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        if !FileManager.default.fileExists(atPath: "/proc/self/exe") {
            process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        }
        var arguments = [
            subcommand, variant.rawValue, "--work", options.workDirectory.path,
            "--base-url", options.baseURL?.absoluteString ?? "",
        ]
        if options.quick { arguments.append("--quick") }
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        guard process.terminationStatus == 0,
            let line = text.split(separator: "\n").last(where: { $0.hasPrefix("RESULT ") })
        else {
            throw BenchmarkError(
                "\(subcommand) \(variant.rawValue) failed (status \(process.terminationStatus)): \(text)")
        }
        let fields = line.split(separator: " ").dropFirst().compactMap { Double($0) }
        guard fields.count == 3 else { throw BenchmarkError("bad child output: \(line)") }
        return ChildResult(seconds: fields[0], bytes: Int64(fields[1]), peakMiB: fields[2])
    }

    /// Runs in the child: one download of the large file, then prints `RESULT …`.
    static func child(_ options: Options) throws {
        guard let variant = options.positional.first.flatMap(Variant.init(rawValue:)) else {
            throw BenchmarkError("child-download needs raw, ck or curl")
        }
        let url = try options.url(ServedFiles.big)
        let destination = options.downloadsDirectory.appendingPathComponent("big-\(variant.rawValue).bin")
        try? FileManager.default.removeItem(at: destination)
        let start = Driver.now()
        try download(url, to: destination, variant: variant, timeout: 600)
        let seconds = Driver.now() - start
        let bytes = (try FileManager.default.attributesOfItem(atPath: destination.path)[.size] as? Int64) ?? 0
        try? FileManager.default.removeItem(at: destination)
        guard bytes == options.bigFileBytes else {
            throw BenchmarkError("saved \(bytes) bytes, expected \(options.bigFileBytes)")
        }
        print("RESULT \(seconds) \(bytes) \(ProcessMemory.peakResidentMiB() ?? 0)")
    }

    /// Downloads `url` to `destination` with `variant` and waits for the end.
    static func download(_ url: URL, to destination: URL, variant: Variant, timeout: Double) throws {
        let outcome = Locked<(any Error)?>(nil)
        let done = DispatchSemaphore(value: 0)
        switch variant {
        case .raw:
            RawClient.session.downloadTask(with: url) { location, _, error in
                do {
                    if let error { throw error }
                    guard let location else { throw BenchmarkError("no file") }
                    try FileManager.default.moveItem(at: location, to: destination)
                } catch {
                    outcome.withLock { $0 = error }
                }
                done.signal()
            }.resume()
        case .connectionKit, .libcurl:
            let request = BenchDownload(from: url, to: destination, transport: variant.transport ?? .urlSession)
            request.callbackQueue = KitClient.callbackQueue
            request.completionHandler = { _ in done.signal() }
            request.failureHandler = { error in
                outcome.withLock { $0 = error }
                done.signal()
            }
            request.start()
        }
        guard done.wait(timeout: .now() + timeout) == .success else {
            throw BenchmarkError("the \(variant.rawValue) download of \(url.path) did not end within \(Int(timeout)) s")
        }
        if let error = outcome.withLock({ $0 }) { throw error }
    }
}

/// A `DownloadRequest` on the transport of its variant.
final class BenchDownload: DownloadRequest, @unchecked Sendable {
    // Safe: `chosen` is a `let`; the rest lives in the base class's locked storage.
    private let chosen: ConnectionTransport
    init(from source: URL, to destination: URL, transport: ConnectionTransport) {
        chosen = transport
        super.init(from: source, to: destination)
    }
    override var transport: ConnectionTransport { chosen }
}
