// RegistryBench: what the registry costs. Prints figures; not a test.
//
// Uses only the public API of ConnectionKit and ConnectionKitTesting (a loopback TestServer with a
// route that never answers, so that 10,000 requests stay live). Build in release:
//   swift run -c release RegistryBench [live-count]
import ConnectionKit
import ConnectionKitTesting
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A request to a fixed URL; the subclasses split the live set in two for cancel by class.
class BenchProbe: ConnectionRequest<Data>, @unchecked Sendable {
    // Safe: `target` is a `let` set in init.
    let target: URL?
    init(_ target: URL?, queue: DispatchQueue) {
        self.target = target
        super.init()
        callbackQueue = queue
    }
    override var url: URL? { target }
}
final class HangingA: BenchProbe, @unchecked Sendable {}  // Safe: no state of its own.
final class HangingB: BenchProbe, @unchecked Sendable {}  // Safe: no state of its own.
final class NoURL: BenchProbe, @unchecked Sendable {}  // Safe: no state of its own.
final class Loopback: BenchProbe, @unchecked Sendable {}  // Safe: no state of its own.

func seconds(_ body: () -> Void) -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted[sorted.count / 2]
}

func format(_ value: Double) -> String {
    value >= 1e-3 ? String(format: "%.2f ms", value * 1e3) : String(format: "%.1f µs", value * 1e6)
}

func line(_ label: String, _ value: String) {
    print(label.padding(toLength: 72, withPad: " ", startingAt: 0) + value)
}

/// Starts `count` requests made by `make`, waits until every one has ended, returns seconds per request.
func lifecycleCost(count: Int, make: (DispatchQueue) -> BenchProbe) -> Double {
    let queue = DispatchQueue(label: "bench.callbacks")
    let group = DispatchGroup()
    let requests = (0..<count).map { _ in make(queue) }
    for request in requests {
        group.enter()
        request.completionHandler = { _ in group.leave() }
        request.failureHandler = { _ in group.leave() }
    }
    let total = seconds {
        requests.forEach { $0.start() }
        if group.wait(timeout: .now() + 300) == .timedOut { print("!! requests did not end") }
    }
    return total / Double(count)
}

func run() throws {
    let live = CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 10_000
    let server = try TestServer.started()
    defer { server.stop() }
    server.route("/hang") { _ in TestResponse(fault: .neverRespond) }
    server.route("/small") { _ in .text(String(repeating: "x", count: 1024)) }
    print("RegistryBench — \(ProcessInfo.processInfo.activeProcessorCount) cores, \(live) live requests")

    // MARK: 10,000 live requests
    let queue = DispatchQueue(label: "bench.live", attributes: .concurrent)
    let ended = DispatchGroup()
    let requests: [BenchProbe] = (0..<live).map { index in
        let request: BenchProbe =
            index % 2 == 0 ? HangingA(server.url("/hang"), queue: queue) : HangingB(server.url("/hang"), queue: queue)
        ended.enter()
        request.failureHandler = { _ in ended.leave() }
        return request
    }
    let startAll = seconds { requests.forEach { $0.start() } }
    line("start() × \(live) (incl. URLSession task creation)", format(startAll / Double(live)) + " per request")
    line("registry count", "\(ConnectionRegistry.shared.activeRequests.count)")

    var snapshots: [Double] = []
    var rows = 0
    for _ in 0..<15 { snapshots.append(seconds { rows = ConnectionRegistry.shared.snapshot().count }) }
    line("snapshot() with \(rows) live (median of 15)", format(median(snapshots)))
    var dumps: [Double] = []
    for _ in 0..<5 { dumps.append(seconds { _ = ConnectionRegistry.shared.debugDump() }) }
    line("debugDump() with \(rows) live (median of 5)", format(median(dumps)))
    var queries: [Double] = []
    for _ in 0..<15 { queries.append(seconds { _ = ConnectionRegistry.shared.requests(of: HangingA.self) }) }
    line("requests(of:) half of \(rows) (median of 15)", format(median(queries)))
    var inUse: [Double] = []
    for _ in 0..<15 { inUse.append(seconds { _ = ConnectionRegistry.shared.isInUse(HangingB.self) }) }
    line("isInUse(_:), match near the front (median of 15)", format(median(inUse)))
    var fullScan: [Double] = []
    for _ in 0..<15 { fullScan.append(seconds { _ = ConnectionRegistry.shared.isInUse(NoURL.self) }) }
    line("isInUse(_:), no match: full scan (median of 15)", format(median(fullScan)))

    let cancelA = seconds { ConnectionRegistry.shared.cancelAll(HangingA.self) }
    line("cancelAll(HangingA) — \(live / 2) of \(rows) live, call returns", format(cancelA))
    let cancelB = seconds { ConnectionRegistry.shared.cancelAll(HangingB.self) }
    line("cancelAll(HangingB) — the other \(live - live / 2), call returns", format(cancelB))
    let drain = seconds { _ = ended.wait(timeout: .now() + 300) }
    line("…until every failure handler ran", format(drain))
    line("registry count after", "\(ConnectionRegistry.shared.activeRequests.count)")

    // MARK: Per-request overhead
    let rounds = 20_000
    _ = lifecycleCost(count: 1000) { NoURL(nil, queue: $0) }  // warm-up
    let bookkeeping = lifecycleCost(count: rounds) { NoURL(nil, queue: $0) }
    line("start→fail→handler, no transport (register, 2 emits, unregister)", format(bookkeeping) + " per request")

    let listening = ConnectionRegistry.shared.events
    let drainEvents = Task { for await _ in listening {} }
    let withListener = lifecycleCost(count: rounds) { NoURL(nil, queue: $0) }
    drainEvents.cancel()
    line("  same with one events listener", format(withListener) + " per request")

    _ = lifecycleCost(count: 200) { Loopback(server.url("/small"), queue: $0) }  // warm-up
    var loopback: [Double] = []
    for _ in 0..<3 {
        let queue = DispatchQueue(label: "bench.sequential")
        var total = 0.0
        for _ in 0..<500 {
            let request = Loopback(server.url("/small"), queue: queue)
            let done = DispatchSemaphore(value: 0)
            request.completionHandler = { _ in done.signal() }
            request.failureHandler = { _ in done.signal() }
            total += seconds {
                request.start()
                done.wait()
            }
        }
        loopback.append(total / 500)
    }
    let full = median(loopback)
    line("full loopback GET 1 KiB, sequential (median of 3×500)", format(full) + " per request")
    line(
        "registry + lifecycle bookkeeping share of a loopback request",
        String(format: "%.1f %%", bookkeeping / full * 100))
}

do {
    try run()
} catch {
    print("RegistryBench failed: \(error)")
}
