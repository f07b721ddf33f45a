// Soak: 100,000 requests in a loop against the loopback TestServer with faults injected (retried
// 503s, connection resets, truncated bodies, redirects, cancels), printing requests per second,
// resident memory at the start, after warm-up and at the end, and lost or doubled endings.
//
//     swift run -c release Soak [requests] [in-flight] [mix] [transport]   (defaults: 100000 32 faults urlsession)
//
// `mix` is `faults` (the default: the mix below), `clean` (every request a plain 1 KiB GET), or
// `urlsession` (the same plain GETs sent with a bare `URLSession` data task, no ConnectionKit: the
// baseline that shows how much memory growth belongs to URLSession and libcurl themselves).
// `transport` is `urlsession` or `libcurl`: the transport of every ConnectionKit request of the run.
//
// Exits with status 1 when an ending is lost or doubled or the registry is not empty at the end.
import ConnectionKit
import ConnectionKitTesting
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The request class of the soak, so the registry check can find exactly its requests.
final class SoakRequest: BasicConnectionRequest, @unchecked Sendable {
    // Safe: immutable after init; the rest lives in the base class's locked storage.
    private let policy: RetryPolicy

    init(_ request: URLRequest, policy: RetryPolicy) {
        self.policy = policy
        super.init(request: request)
    }

    override var retryPolicy: RetryPolicy { policy }
    override var transport: ConnectionTransport { soakTransport }
    override var timeoutInterval: TimeInterval { 5 }
}

/// Ending counts per request, behind a lock.
final class EndingLedger: @unchecked Sendable {
    // Safe: every member is only touched under `lock`.
    private let lock = NSLock()
    private var counts: [UInt8]
    private var kinds: [String: Int] = [:]

    init(count: Int) { counts = Array(repeating: 0, count: count) }

    /// Records an ending; returns whether it was the request's first.
    func record(_ index: Int, kind: String) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        counts[index] &+= 1
        kinds[kind, default: 0] += 1
        return counts[index] == 1
    }

    var summary: (lost: Int, doubled: Int, kinds: [String: Int]) {
        lock.lock()
        defer { lock.unlock() }
        return (counts.filter { $0 == 0 }.count, counts.filter { $0 > 1 }.count, kinds)
    }
}

/// Resident memory in KiB, from `/proc/self/status` (0 where there is none).
func residentKiB() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
    let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") }
    return line.flatMap { Int($0.split(separator: " ").dropFirst().first ?? "") } ?? 0
}

func mebibytes(_ kib: Int) -> String { String(format: "%.1f MiB", Double(kib) / 1024) }

let arguments = CommandLine.arguments
let total = arguments.count > 1 ? Int(arguments[1]) ?? 100_000 : 100_000
let inFlightLimit = arguments.count > 2 ? Int(arguments[2]) ?? 32 : 32
let mix = arguments.count > 3 ? arguments[3] : "faults"
let soakTransport: ConnectionTransport = try arguments.count > 4 && arguments[4] == "libcurl" ? .libcurl() : .urlSession
let warmUp = min(total / 10, 10_000)
let bareSession = URLSession(configuration: .ephemeral)

let server = try TestServer.started()
let flakyHits = Locked(0)
server.route("/ok") { _ in TestResponse(body: .data(Data(count: 1_024))) }
server.route("/flaky") { _ in
    // Every other hit is a 503 with Retry-After 0: about half of these requests are retried.
    let hit = flakyHits.withLock { value -> Int in
        value += 1
        return value
    }
    return hit % 2 == 1 ? TestResponse(status: 503, headers: [TestHeader("Retry-After", "0")]) : .text("ok")
}
server.route("/reset") { _ in TestResponse(fault: .resetBeforeHeaders) }
server.route("/short") { _ in TestResponse(body: .data(Data(count: 100)), fault: .shortBody(declaredLength: 1_000)) }
server.route("/redirect") { _ in .redirect(to: "/ok") }
server.route("/slow") { _ in TestResponse(body: .drip(Data(count: 4_096), chunkSize: 1_024, interval: 0.01)) }

/// A value behind a lock, for the route handler above.
final class Locked<Value>: @unchecked Sendable {
    // Safe: `value` is only touched under `lock`.
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func withLock<Result>(_ body: (inout Value) -> Result) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
}

let policy = RetryPolicy(maximumAttempts: 2, initialBackoff: 0.001, maximumBackoff: 0.01, jitter: 0)
let ledger = EndingLedger(count: total)
let slots = DispatchSemaphore(value: inFlightLimit)
let group = DispatchGroup()
let callbackQueue = DispatchQueue(label: "Soak.callbacks")
let cancelQueue = DispatchQueue(label: "Soak.cancels", attributes: .concurrent)

let rssAtStart = residentKiB()
var samples: [(requests: Int, kib: Int)] = []
var rssAfterWarmUp = rssAtStart
var warmedUpAt = Date()
let startedAt = Date()

for index in 0..<total {
    if index == warmUp {
        _ = group.wait(timeout: .now() + 120)
        server.resetCounters()
        rssAfterWarmUp = residentKiB()
        warmedUpAt = Date()
    }
    if index % 1_000 == 0 { server.resetCounters() }  // the server records every request it reads
    if index > 0, index % 10_000 == 0 { samples.append((index, residentKiB())) }
    // A fixed pseudo-random mix, the same on every run.
    let roll = (index &* 2_654_435_761) % 100
    let path: String
    switch mix == "faults" ? roll : 0 {
    case 0..<65: path = "/ok"
    case 65..<77: path = "/flaky"
    case 77..<82: path = "/reset"
    case 82..<87: path = "/short"
    case 87..<93: path = "/redirect"
    default: path = "/slow"
    }
    if mix == "urlsession" {
        slots.wait()
        group.enter()
        bareSession.dataTask(with: server.url(path)) { data, _, error in
            if ledger.record(index, kind: error == nil && data?.count == 1_024 ? "success" : "failure") {
                slots.signal()
                group.leave()
            }
        }.resume()
        continue
    }
    let request = SoakRequest(URLRequest(url: server.url(path)), policy: policy)
    request.callbackQueue = callbackQueue
    request.completionHandler = { _ in
        if ledger.record(index, kind: "success") {
            slots.signal()
            group.leave()
        }
    }
    request.failureHandler = { error in
        let kind = (error as? ConnectionError).map { "\($0.kind)".components(separatedBy: "(")[0] } ?? "foreign"
        if ledger.record(index, kind: kind) {
            slots.signal()
            group.leave()
        }
    }
    slots.wait()
    group.enter()
    request.start()
    if path == "/slow", roll % 2 == 0 {
        request.cancel()
    } else if path == "/slow" {
        cancelQueue.asyncAfter(deadline: .now() + 0.005) { request.cancel() }
    }
}
let drained = group.wait(timeout: .now() + 120) == .success
callbackQueue.sync {}
let finishedAt = Date()
server.stop()

let summary = ledger.summary
let leftInRegistry = ConnectionRegistry.shared.requests(of: SoakRequest.self).count
let seconds = finishedAt.timeIntervalSince(startedAt)
let steadySeconds = finishedAt.timeIntervalSince(warmedUpAt)
let rssAtEnd = residentKiB()

print("Soak: \(total) requests, \(inFlightLimit) in flight, mix \(mix), transport \(soakTransport)")
print(String(format: "  time              %.1f s", seconds))
print(
    String(
        format: "  requests/second   %.0f overall, %.0f after warm-up", Double(total) / seconds,
        Double(total - warmUp) / steadySeconds))
print(
    "  resident memory   start \(mebibytes(rssAtStart)), after \(warmUp) requests \(mebibytes(rssAfterWarmUp)), end \(mebibytes(rssAtEnd))"
)
print("  memory every 10k  \(samples.map { "\($0.requests / 1_000)k: \(mebibytes($0.kib))" }.joined(separator: ", "))")
print("  endings           lost \(summary.lost), doubled \(summary.doubled), all drained: \(drained)")
print(
    "  by kind           \(summary.kinds.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))"
)
print("  registry          \(leftInRegistry) SoakRequest left")
if summary.lost != 0 || summary.doubled != 0 || leftInRegistry != 0 || !drained {
    exit(1)
}
