import ConnectionKit
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `cancel()` during a full-speed save of the large file: once about 100 MiB have arrived (16 MiB of the
/// 64 MiB file with `--quick`), how long the `cancel()` call blocks its caller, and how long until the
/// failure handler has run (from the call). A cancel that does not return quickly stalls whatever thread
/// made it; one whose handler runs late keeps the app waiting for an ending it asked for.
///
/// Raw: `downloadTask(with:completionHandler:)`, waiting on the size of the file it writes in `$TMPDIR`
/// (its `countOfBytesReceived` stays 0 on Linux), then `task.cancel()`. ConnectionKit: `DownloadRequest(from:to:)`, waiting on its progress handler, then
/// `cancel()`. Each measurement checks that the request ended as cancelled and that nothing it wrote is
/// left behind (leftovers are reported on stderr and removed).
enum CancelLatency: Benchmark {
    static let name = "cancel"

    struct Sample {
        let returnMicroseconds: Double
        let handlerMilliseconds: Double
    }

    /// What the measured request did once started: reached the threshold, then ended (when, and how).
    private final class Observation: Sendable {
        let reached = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        let hasReached = Locked(false)
        let ended = Locked<(time: Double, error: (any Error)?)?>(nil)

        func reach() {
            let first = hasReached.withLock { flag in
                defer { flag = true }
                return !flag
            }
            if first { reached.signal() }
        }

        /// Also counts as reaching the threshold, so that a transfer that ends early does not leave the
        /// measuring thread waiting for bytes that will never come.
        func end(_ error: (any Error)?) {
            let time = Driver.now()
            ended.withLock { $0 = (time, error) }
            done.signal()
            reach()
        }
    }

    static func run(_ options: Options) throws -> [Row] {
        var samples: [Variant: [Sample]] = [:]
        _ = try Driver.alternate(rounds: min(options.rounds, 3), warmUp: false) { variant in
            let sample = try measure(variant, options)
            if let sample { samples[variant, default: []].append(sample) }
            // URLSession keeps tearing the cancelled transfer down after its handler ran.
            Driver.quiesce(limit: 10)
            return sample?.handlerMilliseconds ?? 0
        }
        let label = "cancel during \(options.bigFileLabel) save"
        func figures(_ variant: Variant, _ value: KeyPath<Sample, Double>) -> [Double] {
            (samples[variant] ?? []).map { $0[keyPath: value] }
        }
        var returns = Row(
            "\(label): call returns", unit: "µs", raw: figures(.raw, \.returnMicroseconds),
            connectionKit: figures(.connectionKit, \.returnMicroseconds), goal: .ratioAtMost(1.05))
        (returns.libcurl, returns.libcurlGoal) = (figures(.libcurl, \.returnMicroseconds), .connectionKitBelow(1000))
        var handler = Row(
            "\(label): handler ran", unit: "ms", raw: figures(.raw, \.handlerMilliseconds),
            connectionKit: figures(.connectionKit, \.handlerMilliseconds), goal: .ratioAtMost(1.05))
        (handler.libcurl, handler.libcurlGoal) = (figures(.libcurl, \.handlerMilliseconds), .connectionKitBelow(10))
        return [returns, handler]
    }

    /// One save of the large file, cancelled once `threshold` bytes have arrived. A transfer that ends
    /// without being cancelled measured nothing: it is started again, three tries, then the round has no
    /// figure (reported on stderr; URLSession on Linux can lose a cancel during a fast transfer).
    private static func measure(_ variant: Variant, _ options: Options) throws -> Sample? {
        let threshold: Int64 = options.quick ? 16 << 20 : 100 << 20
        for _ in 0..<3 {
            if let sample = try attempt(variant, threshold: threshold, options) { return sample }
        }
        return nil
    }

    private static func attempt(_ variant: Variant, threshold: Int64, _ options: Options) throws -> Sample? {
        let url = try options.url(ServedFiles.big)
        let destination = options.downloadsDirectory.appendingPathComponent("cancel-\(variant.rawValue).bin")
        try? FileManager.default.removeItem(at: destination)
        let folders = [options.downloadsDirectory, FileManager.default.temporaryDirectory]
        let before = Set(folders.flatMap(entries))
        let observation = Observation()
        let cancel: () -> Void
        switch variant.transport {
        case nil:
            let task = RawClient.session.downloadTask(with: url) { location, _, error in
                if let location { try? FileManager.default.removeItem(at: location) }
                observation.end(error)
            }
            task.resume()
            // The completion-handler API has no progress callback, and on Linux the task's
            // `countOfBytesReceived` stays 0: the size of the file it writes in `$TMPDIR` is read instead.
            let temporary = FileManager.default.temporaryDirectory
            Thread.detachNewThread {
                while observation.ended.withLock({ $0 == nil }) {
                    let written = entries(temporary).filter { !before.contains($0) }.map(size).reduce(0, +)
                    if written >= threshold { break }
                    Thread.sleep(forTimeInterval: 0.001)
                }
                observation.reach()
            }
            cancel = { task.cancel() }
        case let transport?:
            let request = CancelledDownload(from: url, to: destination, transport: transport)
            request.callbackQueue = DispatchQueue(label: "cancel \(variant.rawValue)")
            request.progressHandler = { progress in
                if progress.completedBytes >= threshold { observation.reach() }
            }
            request.completionHandler = { _ in observation.end(nil) }
            request.failureHandler = { error in observation.end(error) }
            request.start()
            cancel = { request.cancel() }
        }
        defer { removeLeftovers(in: folders, before: before, variant: variant) }
        guard observation.reached.wait(timeout: .now() + 120) == .success else {
            cancel()
            _ = observation.done.wait(timeout: .now() + 60)
            throw BenchmarkError("\(variant.label): \(threshold >> 20) MiB did not arrive within 120 s")
        }
        let start = Driver.now()
        cancel()
        let returned = Driver.now()
        guard observation.done.wait(timeout: .now() + 60) == .success,
            let ended = observation.ended.withLock({ $0 })
        else {
            throw BenchmarkError("\(variant.label): no handler ran within 60 s of the cancel")
        }
        let sample = Sample(
            returnMicroseconds: (returned - start) * 1e6, handlerMilliseconds: (ended.time - start) * 1000)
        guard isCancellation(ended.error) else {
            if let error = ended.error { throw BenchmarkError("\(variant.label): failed with \(error)") }
            let after = String(
                format: "%.1f ms after cancel() was called, which returned in %.1f ms", (ended.time - start) * 1000,
                (returned - start) * 1000)
            guard variant.transport == nil, ended.time > start else {
                // Ended before the cancel was made: it measured nothing.
                log("  \(variant.label): the transfer completed \(after)")
                return nil
            }
            // URLSession on Linux loses a cancel during a fast transfer: that is what its caller gets.
            log("  \(variant.label): the cancel was lost, the transfer completed \(after)")
            return sample
        }
        if variant.transport != nil, !ConnectionRegistry.shared.activeRequests.isEmpty {
            throw BenchmarkError("\(variant.label): requests still live after the cancel's handler ran")
        }
        return sample
    }

    private static func isCancellation(_ error: (any Error)?) -> Bool {
        if let error = error as? ConnectionError, case .cancelled = error.kind { return true }
        if let error = error as? URLError { return error.code == .cancelled }
        return false
    }

    private static func entries(_ folder: URL) -> [URL] {
        (try? FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)) ?? []
    }

    private static func size(_ file: URL) -> Int64 {
        ((try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int64) ?? nil) ?? 0
    }

    /// Files the cancelled transfer left in the downloads or temporary folder: reported (URLSession's
    /// download task is known to leave its temporary file on Linux; ConnectionKit must leave nothing)
    /// and removed, so that the disk does not fill up over the rounds.
    private static func removeLeftovers(in folders: [URL], before: Set<URL>, variant: Variant) {
        let left = Set(folders.flatMap(entries)).subtracting(before)
        guard !left.isEmpty else { return }
        let sizes = left.map { "\($0.lastPathComponent) (\(size($0) >> 20) MiB)" }
        log("  \(variant.label) left behind after the cancel: \(sizes.sorted().joined(separator: ", ")); removed")
        for url in left { try? FileManager.default.removeItem(at: url) }
    }
}

/// A `DownloadRequest` on the transport of its variant that reports progress every millisecond, so that
/// the threshold is seen while the transfer runs at full speed (the default, 0.1 s, sees 64 MiB end first).
private final class CancelledDownload: DownloadRequest, @unchecked Sendable {
    // Safe: `chosen` is a `let`; the rest lives in the base class's locked storage.
    private let chosen: ConnectionTransport
    init(from source: URL, to destination: URL, transport: ConnectionTransport) {
        chosen = transport
        super.init(from: source, to: destination)
    }
    override var transport: ConnectionTransport { chosen }
    override var progressInterval: TimeInterval { 0.001 }
}
