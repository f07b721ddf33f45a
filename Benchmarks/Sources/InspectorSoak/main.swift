// InspectorSoak: the app's latency while the inspector is attacked from outside. Prints figures; not a test.
//
// Four phases of app requests (ConnectionKit GETs of a 1 KiB file, 4 in flight) with a started inspector:
// before, during an attack on a decoy, during the same attack on the inspector, and after. The attack is
// idle sockets (opened and held) and abusive connections that reconnect as soon as they are cut off
// (floods of CRLF, a megabyte of folded lines, heads trickled a byte at a time, unauthenticated
// requests). The decoy is a listener in the attacker's process with the inspector's limits: on two cores
// the attack slows everything, and the decoy phase measures that noise. During the attack on the
// inspector a page with the token asks for /api/statistics every 200 ms. It prints each phase's p50 and p99,
// the page's slowest answer, what the attackers managed to send, CPU and peak memory.
// Run by Benchmarks/run.sh (against its nginx), or alone against an in-process TestServer:
//   swift run -c release --package-path Benchmarks InspectorSoak [--quick] [--base-url URL]
import ConnectionKit
import ConnectionKitInspector
import ConnectionKitTesting
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The command line: `--quick`, `--base-url URL` (nginx serving /1k.bin), `--only NAME` (run.sh's filter).
struct SoakOptions {
    var quick = false
    var baseURL: URL?
    var only: String?

    init(_ arguments: [String]) {
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            switch argument {
            case "--quick": quick = true
            case "--base-url": baseURL = remaining.popFirst().flatMap(URL.init(string:))
            case "--only": only = remaining.popFirst()
            default: continue
            }
        }
    }

    var appRequests: Int { quick ? 1_000 : 10_000 }
    var idleSockets: Int { quick ? 200 : 1_000 }
    var abusiveConnections: Int { quick ? 20 : 100 }
}

/// What the abusive connections and the page with the token saw, behind a lock.
final class AttackCounters: @unchecked Sendable {
    // Safe: every stored var is only touched while `lock` is held.
    private let lock = NSLock()
    private var bytes = 0
    private var connections = 0
    private var attackerCPU = 0.0
    private var pageLatencies: [Double] = []
    private var pageFailures: [String: Int] = [:]
    private var stopped = false

    var isStopped: Bool { lock.withLock { stopped } }
    func stop() { lock.withLock { stopped = true } }
    func sent(_ count: Int) { lock.withLock { bytes += count } }
    func connected() { lock.withLock { connections += 1 } }
    func attackerConnections(_ count: Int, cpu: Double) { lock.withLock { (connections, attackerCPU) = (count, cpu) } }
    func page(_ seconds: Double) { lock.withLock { pageLatencies.append(seconds) } }
    func pageFailed(_ reason: String) { lock.withLock { pageFailures[reason, default: 0] += 1 } }
    var snapshot: (bytes: Int, connections: Int, page: [Double], pageFailures: [String: Int], attackerCPU: Double) {
        lock.withLock { (bytes, connections, pageLatencies, pageFailures, attackerCPU) }
    }
}

final class AppFetch: ConnectionRequest<Data>, @unchecked Sendable {
    // Safe: `target` is a `let` set in init.
    let target: URL
    init(_ target: URL) { self.target = target }
    override var url: URL? { target }
}

let options = SoakOptions(Array(CommandLine.arguments.dropFirst()))
if let only = options.only, !"inspector-soak".contains(only) { exit(0) }
let noSignal: Int32 = {
    #if canImport(Glibc)
        return Int32(MSG_NOSIGNAL)
    #else
        return 0
    #endif
}()

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

/// A /proc/self/status figure in MiB (VmHWM: the peak resident set), 0 where there is none.
func statusMiB(_ field: String) -> Double {
    let text = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    let line = text.split(separator: "\n").first { $0.hasPrefix(field + ":") } ?? ""
    return Double(line.split(separator: " ").dropFirst().first ?? "0").map { $0 / 1024 } ?? 0
}

func percentile(_ values: [Double], _ fraction: Double) -> Double {
    guard !values.isEmpty else { return .nan }
    let sorted = values.sorted()
    return sorted[min(sorted.count, max(1, Int((fraction * Double(sorted.count)).rounded(.up)))) - 1]
}

/// Raises the descriptor limit to what the run needs (the hard limit allowing); returns the soft limit.
func raiseDescriptorLimit(to wanted: Int) -> Int {
    var limit = rlimit()
    getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    if limit.rlim_cur < rlim_t(wanted) {
        limit.rlim_cur = min(rlim_t(wanted), limit.rlim_max)
        setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }
    return Int(limit.rlim_cur)
}

/// A connected, blocking loopback socket with 2 s send and receive timeouts; `nil` when refused.
func connectSocket(port: Int) -> Int32? {
    #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
    #endif
    guard fd >= 0 else { return nil }
    var timeout = timeval(tv_sec: 2, tv_usec: 0)
    _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    _ = setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port)).bigEndian
    address.sin_addr = in_addr(s_addr: inet_addr("127.0.0.1"))
    let connected = withUnsafePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
    }
    guard connected == 0 else {
        close(fd)
        return nil
    }
    return fd
}

/// Sends all of `bytes`; whether the peer took them.
func sendAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
    bytes.withUnsafeBytes { buffer in
        guard let base = buffer.baseAddress else { return true }
        var offset = 0
        while offset < buffer.count {
            let sent = send(fd, base + offset, buffer.count - offset, noSignal)
            guard sent > 0 else { return false }
            offset += sent
        }
        return true
    }
}

/// Reads until the peer closes (or 2 s pass); returns what arrived.
func readAll(_ fd: Int32) -> [UInt8] {
    var answer: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 16_384)
    while true {
        let count = recv(fd, &chunk, chunk.count, 0)
        guard count > 0 else { return answer }
        answer += chunk[0..<count]
    }
}

/// One phase's app requests: `count` GETs of `url`, 4 in flight; each one's latency in milliseconds.
func appPhase(_ url: URL, count: Int) -> (latencies: [Double], failures: Int, cpu: Double) {
    let results = Locked<(latencies: [Double], failures: Int)>(([], 0))
    let window = DispatchSemaphore(value: 4)
    let group = DispatchGroup()
    let queue = DispatchQueue(label: "InspectorSoak.callbacks")
    let cpuBefore = cpuSeconds()
    for _ in 0..<count {
        window.wait()
        group.enter()
        let request = AppFetch(url)
        let started = now()
        request.callbackQueue = queue
        request.completionHandler = { _ in
            results.withLock { $0.latencies.append((now() - started) * 1000) }
            window.signal()
            group.leave()
        }
        request.failureHandler = { _ in
            results.withLock { $0.failures += 1 }
            window.signal()
            group.leave()
        }
        request.start()
    }
    group.wait()
    let (latencies, failures) = results.withLock { $0 }
    return (latencies, failures, cpuSeconds() - cpuBefore)
}

func report(_ name: String, _ phase: (latencies: [Double], failures: Int, cpu: Double)) {
    print(
        String(
            format: "| app requests, %@ | %d | %.2f | %.2f | %.2f | %d | %.2f |", name, phase.latencies.count,
            percentile(phase.latencies, 0.5), percentile(phase.latencies, 0.99), phase.latencies.max() ?? .nan,
            phase.failures, phase.cpu))
}

func runSoak() throws {
    let server = try TestServer.started()
    defer { server.stop() }
    server.route("/1k.bin") { _ in .text(String(repeating: "x", count: 1024)) }
    let appURL = options.baseURL.map { $0.appendingPathComponent("1k.bin") } ?? server.url("/1k.bin")
    let limit = raiseDescriptorLimit(to: options.idleSockets + options.abusiveConnections + 512)
    let idleCount = min(options.idleSockets, max(0, limit - options.abusiveConnections - 512))
    let inspector = ConnectionInspector()
    let inspectorURL = try inspector.start()
    defer { inspector.stop() }
    _ = appPhase(appURL, count: 200)  // warm-up: connections, code paths

    let before = appPhase(appURL, count: options.appRequests)
    let decoy = attackPhase(appURL, port: nil, idleCount: idleCount)
    let counters = AttackCounters()
    let port = inspectorURL.port ?? 0
    let idle = openIdleSockets(idleCount, port: port)
    let attacker = try AttackerProcess(port: port, connections: options.abusiveConnections)
    let attackers = DispatchGroup()
    attackers.enter()
    Thread.detachNewThread {
        followAsPage(url: inspectorURL, counters: counters)
        attackers.leave()
    }
    let attackStarted = now()
    let during = appPhase(appURL, count: options.appRequests)
    let attackSeconds = now() - attackStarted
    let closedIdle = closedCount(idle)
    counters.stop()
    attackers.wait()
    let (sent, connections, attackerCPU) = attacker.finish()
    counters.sent(sent)
    counters.attackerConnections(connections, cpu: attackerCPU)
    idle.forEach { close($0) }
    let after = appPhase(appURL, count: options.appRequests)
    printFigures(
        phases: (before, decoy, during, after), counters: counters, idle: (idle.count, closedIdle),
        seconds: attackSeconds)
}

/// App requests during the same attack aimed at the attacker's own ``Decoy``: the noise the attack causes.
func attackPhase(_ appURL: URL, port: Int?, idleCount: Int) -> (latencies: [Double], failures: Int, cpu: Double) {
    guard let attacker = try? AttackerProcess(port: port, connections: options.abusiveConnections) else {
        return ([], 0, 0)
    }
    let idle = openIdleSockets(idleCount, port: attacker.port)
    let phase = appPhase(appURL, count: options.appRequests)
    _ = attacker.finish()
    idle.forEach { close($0) }
    return phase
}

typealias Phase = (latencies: [Double], failures: Int, cpu: Double)

func printFigures(
    phases: (before: Phase, decoy: Phase, during: Phase, after: Phase), counters: AttackCounters,
    idle: (open: Int, closed: Int), seconds: Double
) {
    let attack = counters.snapshot
    print("| phase | requests | p50 ms | p99 ms | max ms | failed | CPU s |")
    print("|:--|--:|--:|--:|--:|--:|--:|")
    report("before the attack", phases.before)
    report("during the attack on a decoy", phases.decoy)
    report("during the attack on the inspector", phases.during)
    report("after the attack", phases.after)
    print("")
    let p99 = { (phase: Phase) in percentile(phase.latencies, 0.99) }
    print(
        String(
            format: "app p99 with the inspector attacked minus with the decoy attacked: %+.2f ms "
                + "(the attack's own noise: decoy minus before %+.2f ms; before/after differ by %.2f ms)",
            p99(phases.during) - p99(phases.decoy), p99(phases.decoy) - p99(phases.before),
            abs(p99(phases.before) - p99(phases.after))))
    print(
        String(
            format: "page with the token: %d answers, %d failed, p50 %.1f ms, p99 %.1f ms, slowest %.1f ms",
            attack.page.count, attack.pageFailures.values.reduce(0, +), percentile(attack.page, 0.5) * 1000,
            percentile(attack.page, 0.99) * 1000, (attack.page.max() ?? .nan) * 1000))
    print(
        String(
            format: "attack: %d idle sockets (%d closed by the inspector), %d abusive connections (another process, "
                + "%.1f CPU s) made %d connections and sent %.1f MiB in %.1f s", idle.open, idle.closed,
            options.abusiveConnections, attack.attackerCPU, attack.connections, Double(attack.bytes) / 1_048_576,
            seconds))
    if !attack.pageFailures.isEmpty { print("page failures: \(attack.pageFailures)") }
    print(String(format: "process peak resident memory (VmHWM): %.1f MiB", statusMiB("VmHWM")))
}

do {
    if CommandLine.arguments.dropFirst().first == "attack" {
        AttackerProcess.runChild(Array(CommandLine.arguments.dropFirst(2)))
        exit(0)
    }
    try runSoak()
} catch {
    FileHandle.standardError.write(Data("InspectorSoak: \(error)\n".utf8))
    exit(1)
}
