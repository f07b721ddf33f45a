import ConnectionKit
import ConnectionKitTesting
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The registry with 10,000 live requests: starting them, a snapshot of all, and cancelling them by class.
///
/// The requests go to an in-process `TestServer` route that never answers, so they stay live for as
/// long as the benchmark needs: 64 of them hold a connection each (the per-host limit) and the rest wait
/// in URLSession's queue, which is what 10,000 live requests look like to an app.
///
/// Raw URLSession has no registry; its honest equivalent is what an app would write: keep the tasks in an
/// array, read each task's request, state and byte counts for the "snapshot", and call `cancel()` on
/// each. "Cancelled" ends when every completion handler has run.
enum RegistryOperations: Benchmark {
    static let name = "registry"

    /// The class cancelled by class.
    final class HeldRequest: BasicConnectionRequest, @unchecked Sendable {
        // Safe: no stored state of its own.
    }

    /// One run's timings, in milliseconds.
    struct Timings {
        var start = 0.0
        var snapshot = 0.0
        var cancelReturned = 0.0
        var cancelEnded = 0.0
    }

    static func run(_ options: Options) throws -> [Row] {
        let count = options.quick ? 1000 : 10_000
        var timings: [Variant: [Timings]] = [:]
        let rounds = min(options.rounds, 3)
        _ = try Driver.alternate(rounds: rounds, warmUp: false, variants: [.raw, .connectionKit]) { variant in
            let server = try TestServer.started()
            defer { server.stop() }
            server.route("/hold") { _ in
                var response = TestResponse.status(200)
                response.fault = .neverRespond
                return response
            }
            let timing =
                try variant == .raw ? measureRaw(count, server.url("/hold")) : measureKit(count, server.url("/hold"))
            timings[variant, default: []].append(timing)
            // URLSession tears the cancelled tasks down in the background; the next variant must not pay for it.
            Driver.quiesce()
            return timing.cancelEnded
        }
        let raw = timings[.raw] ?? []
        let kit = timings[.connectionKit] ?? []
        let label = count >= 1000 ? "\(count / 1000),\(String(format: "%03d", count % 1000))" : "\(count)"
        return [
            // Starting is dominated by libcurl juggling thousands of pending handles (it swings several-fold
            // from run to run, in either variant): shown, but not held to a goal.
            Row(
                "start \(label) held requests", unit: "ms", raw: raw.map(\.start), connectionKit: kit.map(\.start),
                goal: .none),
            Row(
                "snapshot of \(label) live requests", unit: "ms", raw: raw.map(\.snapshot),
                connectionKit: kit.map(\.snapshot), goal: .ratioAtMost(1.05)),
            Row(
                "cancel \(label) by class: call returns", unit: "ms", raw: raw.map(\.cancelReturned),
                connectionKit: kit.map(\.cancelReturned), goal: .ratioAtMost(1.05)),
            Row(
                "cancel \(label) by class: all ended", unit: "ms", raw: raw.map(\.cancelEnded),
                connectionKit: kit.map(\.cancelEnded), goal: .ratioAtMost(1.05)),
        ]
    }

    /// Counts endings and signals when `count` have arrived.
    private final class Endings: Sendable {
        let count: Int
        let ended = Locked(0)
        let all = DispatchSemaphore(value: 0)

        init(count: Int) {
            self.count = count
        }

        func end() {
            if ended.withLock({ value -> Bool in
                value += 1
                return value == count
            }) {
                all.signal()
            }
        }

        func wait() throws {
            guard all.wait(timeout: .now() + 300) == .success else {
                throw BenchmarkError("only \(ended.withLock { $0 }) of \(count) held requests ended")
            }
        }
    }

    private static func measureRaw(_ count: Int, _ url: URL) throws -> Timings {
        var timings = Timings()
        let endings = Endings(count: count)
        var start = Driver.now()
        let tasks = (0..<count).map { _ in
            let task = RawClient.session.dataTask(with: url) { _, _, _ in endings.end() }
            task.resume()
            return task
        }
        timings.start = (Driver.now() - start) * 1000

        struct TaskSnapshot {
            let identifier: Int
            let method: String?
            let url: String?
            let state: URLSessionTask.State
            let received: Int64
            let expected: Int64
        }
        start = Driver.now()
        let snapshot = tasks.map {
            TaskSnapshot(
                identifier: $0.taskIdentifier, method: $0.originalRequest?.httpMethod,
                url: $0.originalRequest?.url?.absoluteString, state: $0.state, received: $0.countOfBytesReceived,
                expected: $0.countOfBytesExpectedToReceive)
        }
        timings.snapshot = (Driver.now() - start) * 1000
        guard snapshot.count == count else { throw BenchmarkError("raw snapshot has \(snapshot.count)") }

        start = Driver.now()
        tasks.forEach { $0.cancel() }
        timings.cancelReturned = (Driver.now() - start) * 1000
        try endings.wait()
        timings.cancelEnded = (Driver.now() - start) * 1000
        return timings
    }

    private static func measureKit(_ count: Int, _ url: URL) throws -> Timings {
        var timings = Timings()
        let endings = Endings(count: count)
        var start = Driver.now()
        for _ in 0..<count {
            let request = HeldRequest(request: URLRequest(url: url))
            request.callbackQueue = KitClient.callbackQueue
            request.completionHandler = { _ in endings.end() }
            request.failureHandler = { _ in endings.end() }
            request.start()
        }
        timings.start = (Driver.now() - start) * 1000

        start = Driver.now()
        let snapshot = ConnectionRegistry.shared.snapshot()
        timings.snapshot = (Driver.now() - start) * 1000
        // A request the server failed to accept (under a profiler, say) has ended; every other one is live.
        let ended = endings.ended.withLock { $0 }
        guard snapshot.count + ended >= count else {
            throw BenchmarkError("the snapshot has \(snapshot.count) requests and \(ended) ended")
        }

        start = Driver.now()
        ConnectionRegistry.shared.cancelAll(HeldRequest.self)
        timings.cancelReturned = (Driver.now() - start) * 1000
        try endings.wait()
        timings.cancelEnded = (Driver.now() - start) * 1000
        return timings
    }
}
