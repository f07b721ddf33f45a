import ConnectionKit
import ConnectionKitInspector
import ConnectionKitTesting
import Foundation

// A process that keeps requests running with its inspector on, for the browser test
// (scripts/inspector-browser-test.py) and for the benchmark of the page's first render.
// Prints the inspector's URL on the first line of standard output, then runs until killed.
//   InspectorDemo            a loop of quick, slow, failing and retried requests, plus one that hangs
//   InspectorDemo --live N   N requests that hang, started at once (for the first-render figure)
// A line `held` on standard input starts a HeldFetch, whose server never answers: the browser test starts
// one after the page opened, to see its URL in the live list while nothing came back.

final class QuickFetch: ConnectionRequest<Data>, @unchecked Sendable {
    // Safe: `target` is a `let` set in init.
    let target: URL
    init(_ target: URL) { self.target = target }
    override var url: URL? { target }
    override var requestHeaderFields: [String: String] { ["Authorization": "Bearer demo-secret-token"] }
}

final class SlowDownload: ConnectionRequest<Data>, @unchecked Sendable {
    // Safe: `target` is a `let` set in init.
    let target: URL
    init(_ target: URL) { self.target = target }
    override var url: URL? { target }
}

final class FlakyUpload: ConnectionRequest<Data>, @unchecked Sendable {
    // Safe: `target` is a `let` set in init.
    let target: URL
    init(_ target: URL) { self.target = target }
    override var url: URL? { target }
    override var httpMethod: HTTPMethod { .put }
    override var bodyData: Data? { Data(repeating: 7, count: 2048) }
    override var retryPolicy: RetryPolicy {
        RetryPolicy(maximumAttempts: 3, initialBackoff: 0.2, backoffMultiplier: 1, maximumBackoff: 1, jitter: 0)
    }
}

final class HeldFetch: ConnectionRequest<Data>, @unchecked Sendable {
    // Safe: `target` is a `let` set in init.
    let target: URL
    init(_ target: URL) { self.target = target }
    override var url: URL? { target }
    override var timeoutInterval: TimeInterval { 3600 }
}

final class HangingPoll: ConnectionRequest<Data>, @unchecked Sendable {
    // Safe: `target` is a `let` set in init.
    let target: URL
    init(_ target: URL) { self.target = target }
    override var url: URL? { target }
    override var timeoutInterval: TimeInterval { 3600 }
}

let server = try TestServer.started()
server.route("/quick") { _ in .json(["ok": true]) }
server.route("/slow") { _ in
    TestResponse(body: .drip(Data(repeating: 65, count: 40_000), chunkSize: 4000, interval: 0.15))
}
let flakyCount = Counter()
server.route("/flaky") { _ in flakyCount.next() % 3 == 2 ? .text("stored") : .status(503) }
server.route("/hang") { _ in TestResponse(fault: .neverRespond) }
server.route("/held") { _ in TestResponse(fault: .neverRespond) }

let inspector = ConnectionInspector()
let url = try inspector.start()
FileHandle.standardOutput.write(Data((url.absoluteString + "\n").utf8))

Thread.detachNewThread {
    while let line = readLine() {
        if line == "held" { HeldFetch(server.url("/held?started=after-the-page")).start() }
    }
}

let arguments = CommandLine.arguments
if let index = arguments.firstIndex(of: "--live"), index + 1 < arguments.count, let count = Int(arguments[index + 1]) {
    for _ in 0..<count { HangingPoll(server.url("/hang")).start() }
} else {
    HangingPoll(server.url("/hang")).start()
    Thread.detachNewThread {
        while true {
            QuickFetch(server.url("/quick?page=1")).start()
            SlowDownload(server.url("/slow")).start()
            FlakyUpload(server.url("/flaky")).start()
            QuickFetch(server.url("/missing")).start()
            Thread.sleep(forTimeInterval: 0.7)
            if !ConnectionRegistry.shared.isInUse(HangingPoll.self) { HangingPoll(server.url("/hang")).start() }
        }
    }
}
dispatchMain()

/// A counter shared by the server's handler threads.
final class Counter: @unchecked Sendable {
    // Safe: `value` is only touched while `lock` is held.
    private let lock = NSLock()
    private var value = 0
    func next() -> Int {
        lock.withLock {
            defer { value += 1 }
            return value
        }
    }
}
