import ConnectionKit
import ConnectionKitTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The request class of the load test, on a client of its own: its 5,000 runs in the shared client's
/// 1,000-run history would push out the records that tests running beside it look for.
final class LoadRequest: RetryingRequest, @unchecked Sendable {  // Safe: no state of its own.
    static let client = ConnectionClient.ownForTests(label: "load")
    override var client: ConnectionClient { Self.client }
}

/// 5,000 requests with random cancels, retries and faults, started from several threads: each ends
/// exactly once and the registry is left empty.
@Suite(.offThePool, .exclusive, .timeLimit(.minutes(20))) struct LoadTests {
    /// The routes a load request picks from, with the policy-visible behaviour of each.
    static let paths = ["/ok", "/ok", "/ok", "/flaky", "/reset", "/short", "/slow", "/silent", "/busy", "/loop"]

    static func serve(on server: TestServer) {
        let seen = Locked<Set<String>>([])
        server.route("/ok") { _ in .text("ok") }
        server.route("/flaky") { request in
            // The first attempt of each request fails, the retry succeeds.
            let first = seen.withLock { $0.insert(request.query ?? "").inserted }
            return first ? .status(503) : .text("ok")
        }
        server.route("/reset") { _ in TestResponse(fault: .resetBeforeHeaders) }
        server.route("/short") { _ in
            TestResponse(body: .data(Data(count: 100)), fault: .shortBody(declaredLength: 1_000))
        }
        server.route("/slow") { _ in TestResponse(body: .drip(Data(count: 4_000), chunkSize: 1_000, interval: 0.05)) }
        server.route("/silent") { _ in TestResponse(fault: .neverRespond) }
        server.route("/busy") { _ in TestResponse(status: 503, headers: [TestHeader("Retry-After", "0")]) }
        server.route("/loop") { _ in .redirect(to: "/loop") }
    }

    @Test func everyRequestEndsExactlyOnce() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        Self.serve(on: server)
        let total = 5_000
        let threads = 4
        let inFlight = DispatchSemaphore(value: 48)
        let callbackQueue = DispatchQueue(label: "LoadTests.callbacks")
        let cancelQueue = DispatchQueue(label: "LoadTests.cancels", attributes: .concurrent)
        let policy = RetryPolicy(maximumAttempts: 2, initialBackoff: 0.005, maximumBackoff: 0.02, jitter: 0.5)
        // Past the 0.3 s idle timeout, the backoffs and the delayed cancels (0.05 s at most).
        let endings = EndingRecorder(settle: settleWindow(policy: policy, timeout: 0.3))
        let requests = Locked<[LoadRequest]>([])
        // Set when no slot freed within 30 s (48 requests that never end, the bug this test hunts): the
        // threads stop starting requests instead of blocking for ever (a time limit cannot end them).
        let stalled = Locked(false)
        let started = Date()

        // The starting threads block on `inFlight`: on threads of their own, not the test's pool thread
        // (see `onOwnThread`).
        await onOwnThread {
            DispatchQueue.concurrentPerform(iterations: threads) { thread in
                var generator = SystemRandomNumberGenerator()
                for index in stride(from: thread, to: total, by: threads) where !stalled.withLock({ $0 }) {
                    let path = Self.paths.randomElement(using: &generator) ?? "/ok"
                    let url = server.url("\(path)?n=\(index)")
                    let request = LoadRequest(URLRequest(url: url), policy: policy, timeout: 0.3, redirectLimit: 3)
                    guard inFlight.wait(timeout: .now() + 30) == .success else {
                        stalled.withLock { $0 = true }
                        break
                    }
                    requests.withLock { $0.append(request) }
                    endings.track(request, queue: callbackQueue, onFirstEnding: { inFlight.signal() })
                    request.start()
                    switch Int.random(in: 0..<10, using: &generator) {
                    case 0: request.cancel()
                    case 1, 2:
                        let delay = Double.random(in: 0...0.05, using: &generator)
                        cancelQueue.asyncAfter(deadline: .now() + delay) { request.cancel() }
                    default: break
                    }
                }
            }
        }
        #expect(!stalled.withLock { $0 }, "48 requests in flight did not end within 30 s: starting stopped")
        // Records an issue for a request that did not end, or ended twice within the settle window.
        #expect(await endings.ended(within: 90), "every request ended within 90 s")
        await onOwnThread { cancelQueue.sync(flags: .barrier) {} }
        let counts = endings.allCounts
        #expect(counts.count == total)
        #expect(
            counts.filter { $0 != 1 }.isEmpty,
            "lost: \(counts.filter { $0 == 0 }.count), doubled: \(counts.filter { $0 > 1 }.count)")
        var seen: [String: Int] = [:]
        for request in requests.withLock({ $0 }) {
            switch endings.ending(of: request) {
            case .success?: seen["success", default: 0] += 1
            case .failure(let error)?: seen["\(error.kind)".components(separatedBy: "(")[0], default: 0] += 1
            case nil: break
            }
        }
        #expect(LoadRequest.client.registry.requests(of: LoadRequest.self).isEmpty)
        #expect(
            Set(seen.keys).isSubset(of: [
                "success", "cancelled", "timedOut", "transport", "unacceptableStatusCode", "tooManyRedirects",
            ]), "\(seen)")
        #expect(seen["success", default: 0] > total / 4)
        print("LoadTests: \(total) requests in \(String(format: "%.1f", Date().timeIntervalSince(started))) s: \(seen)")
    }

    /// Linux URLSession traps when a task is cancelled while its redirect callback is pending; cancels
    /// that race redirects must end the request once, quietly.
    @Test func cancelsRacingRedirectsDoNotTrap() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/a") { _ in .redirect(to: "/b") }
        server.route("/b") { _ in .redirect(to: "/c", status: 307) }
        server.route("/c") { _ in .text("end") }
        let total = 400
        let endings = EndingRecorder()
        let callbackQueue = DispatchQueue(label: "LoadTests.redirect-callbacks")
        for index in 0..<total {
            let request = LoadRequest(URLRequest(url: server.url("/a?n=\(index)")))
            endings.track(request, queue: callbackQueue)
            request.start()
            DispatchQueue.global().asyncAfter(deadline: .now() + Double.random(in: 0...0.004)) { request.cancel() }
        }
        #expect(await endings.ended(within: 60))
        #expect(endings.allCounts.allSatisfy { $0 == 1 })
    }
}
