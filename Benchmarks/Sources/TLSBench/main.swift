// TLSBench: figures for TLS (issue 17), libcurl transport against raw URLSession, alternating rounds.
//
//   Benchmarks/tls.sh [rounds] [requests-per-row]
//
// The script makes a CA and a server certificate with openssl, starts nginx on loopback (one server
// closing every connection, so each request is a full TLS handshake; one keeping connections alive,
// HTTP/1.1) and runs this program in a private mount namespace where the system CA bundle also holds
// the test CA: raw URLSession on Linux trusts nothing else, and the libcurl transport then uses the
// same default trust. Arguments: <handshake-url> <keep-alive-url> <rounds> <requests>.
//
// Rows: new TLS connection per request (handshakes/s), 1 and 16 in flight; 1 KiB GETs over one reused
// connection (1 in flight) and over 16 (16 in flight). Each round runs every row once per client, the
// order of the clients alternating between rounds; the figure is the median over the rounds.
import ConnectionKit
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A counter of failures shared by completion handlers.
final class Counter: @unchecked Sendable {
    // Safe: only touched under `lock`.
    private var value = 0
    private let lock = NSLock()
    func add() { lock.withLock { value += 1 } }
    var count: Int { lock.withLock { value } }
}

final class Get: ConnectionRequest<Data>, @unchecked Sendable {
    // Safe: immutable lets.
    let target: URL
    let configuration: TLSConfiguration
    init(_ target: URL, tls: TLSConfiguration) {
        self.target = target
        self.configuration = tls
        super.init()
    }
    override var url: URL? { target }
    override var tls: TLSConfiguration { configuration }
    override var transport: ConnectionTransport { (try? .libcurl()) ?? .urlSession }
    override var retryPolicy: RetryPolicy { .none }
}

enum Client: String {
    case urlSession = "raw URLSession"
    case libcurl = "ConnectionKit on libcurl"
    case libcurlOwnCA = "ConnectionKit on libcurl, trust .only(test CA)"
}

let callbacks = DispatchQueue(label: "TLSBench.callbacks")

/// URLSession as a user would set it up for this load: ephemeral, enough connections per host.
let session: URLSession = {
    let configuration = URLSessionConfiguration.ephemeral
    configuration.httpMaximumConnectionsPerHost = 64
    configuration.urlCache = nil
    return URLSession(configuration: configuration)
}()

/// Runs `count` GETs of `url` with `inFlight` at a time; requests per second.
func run(_ client: Client, url: URL, count: Int, inFlight: Int, failures: Counter) -> Double {
    let permits = DispatchSemaphore(value: inFlight)
    let allDone = DispatchGroup()
    let start = DispatchTime.now()
    for _ in 0..<count {
        permits.wait()
        allDone.enter()
        let finish: @Sendable (Bool) -> Void = { ok in
            if !ok { failures.add() }
            permits.signal()
            allDone.leave()
        }
        switch client {
        case .urlSession:
            session.dataTask(with: url) { data, response, error in
                finish(error == nil && (response as? HTTPURLResponse)?.statusCode == 200 && data?.count == 1024)
            }.resume()
        case .libcurl, .libcurlOwnCA:
            let request = Get(url, tls: client == .libcurl ? .default : ownCA)
            request.callbackQueue = callbacks
            request.completionHandler = { data in finish(data.count == 1024) }
            request.failureHandler = { error in
                FileHandle.standardError.write(Data("\(error)\n".utf8))
                finish(false)
            }
            request.start()
        }
    }
    allDone.wait()
    let seconds = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
    return Double(count) / seconds
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return 0 }
    return sorted.count % 2 == 1
        ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

let arguments = CommandLine.arguments
guard arguments.count >= 3, let handshakes = URL(string: arguments[1]), let keepAlive = URL(string: arguments[2]) else {
    FileHandle.standardError.write(Data("usage: TLSBench <handshake-url> <keep-alive-url> [rounds] [requests]\n".utf8))
    exit(2)
}
let rounds = arguments.count > 3 ? Int(arguments[3]) ?? 5 : 5
let requests = arguments.count > 4 ? Int(arguments[4]) ?? 1000 : 1000
/// The test CA alone, for the third column: what a class trusting only its own CA pays per handshake.
let ownCA: TLSConfiguration =
    arguments.count > 5 ? TLSConfiguration(trust: .only([.file(URL(fileURLWithPath: arguments[5]))])) : .default
let clients: [Client] = arguments.count > 5 ? [.urlSession, .libcurl, .libcurlOwnCA] : [.urlSession, .libcurl]

let rows: [(name: String, url: URL, inFlight: Int, count: Int)] = [
    ("new TLS connection per request, 1 in flight (handshakes/s)", handshakes, 1, max(50, requests / 5)),
    ("new TLS connection per request, 16 in flight (handshakes/s)", handshakes, 16, max(50, requests / 5)),
    ("1 KiB GETs over one reused TLS connection (1 in flight)", keepAlive, 1, requests),
    ("1 KiB GETs over 16 TLS connections (16 in flight)", keepAlive, 16, requests * 2),
]

let failures = Counter()
// Warm-up: loads libcurl, opens connections, fills caches for both clients.
for client in clients {
    _ = run(client, url: keepAlive, count: 200, inFlight: 16, failures: failures)
    _ = run(client, url: handshakes, count: 20, inFlight: 1, failures: failures)
}
var results: [String: [Client: [Double]]] = [:]
for round in 0..<rounds {
    let order: [Client] = round % 2 == 0 ? clients : clients.reversed()
    for row in rows {
        for client in order {
            let rate = run(client, url: row.url, count: row.count, inFlight: row.inFlight, failures: failures)
            results[row.name, default: [:]][client, default: []].append(rate)
        }
    }
    FileHandle.standardError.write(Data("round \(round + 1) of \(rounds) done\n".utf8))
}

print(
    "TLSBench: \(rounds) rounds, medians (req/s); libcurl \((try? ConnectionTransport.libcurl()) != nil ? "loaded" : "MISSING")"
)
print("| row | " + clients.map(\.rawValue).joined(separator: " | ") + " | libcurl / URLSession |")
print("|---" + String(repeating: "|---", count: clients.count + 1) + "|")
for row in rows {
    let rates = clients.map { median(results[row.name]?[$0] ?? []) }
    let ratio = String(format: "%.1fx", rates[1] / max(rates[0], 1))
    print("| \(row.name) | " + rates.map { String(Int($0.rounded())) }.joined(separator: " | ") + " | \(ratio) |")
}
print("failures: \(failures.count)")
