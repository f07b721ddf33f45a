import ConnectionKit
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `awaited-endings`: every way a run awaited with `value()` can end, in a process whose main thread is
/// blocked on a semaphore, so that nothing ever serves the main queue (every request's default
/// `callbackQueue`). Each path prints `START <name>`, then `ENDED <name> <result>` once its `value()` returned;
/// a path whose ending waited for the main queue never prints its `ENDED` line.
enum AwaitedEndings {
    /// The parts of the test server the paths use, under `base`: `/ok`, `/status/<code>`, `/hold` (never
    /// answers), `/fresh` (`max-age=60`), `/stale-then-fail` (`max-age=0`, then `500`), `/lines` (three lines).
    struct Paths: Sendable {
        let base: URL
        func url(_ path: String) -> URL { base.appendingPathComponent(path) }
    }

    /// A GET of `target` on `owner`, with the hooks a path needs.
    final class Probe: ConnectionRequest<Data>, @unchecked Sendable {
        // Safe: only immutable stored properties.
        let target: URL?
        let owner: ConnectionClient
        let cache: HTTPCache?
        let policy: HTTPCachePolicy
        let retries: RetryPolicy
        let timeout: TimeInterval
        let refuses: Bool

        init(
            _ target: URL?, on owner: ConnectionClient, cache: HTTPCache? = nil, policy: HTTPCachePolicy = .useCache,
            retries: RetryPolicy = .none, timeout: TimeInterval = 30, refuses: Bool = false
        ) {
            (self.target, self.owner, self.cache, self.policy) = (target, owner, cache, policy)
            (self.retries, self.timeout, self.refuses) = (retries, timeout, refuses)
        }

        override var url: URL? { target }
        override var client: ConnectionClient { owner }
        override var httpCache: HTTPCache? { cache }
        override var cachePolicy: HTTPCachePolicy { cache == nil ? .networkOnly : policy }
        override var retryPolicy: RetryPolicy { retries }
        override var timeoutInterval: TimeInterval { timeout }

        override func validate(_ response: ConnectionResponse, data: Data?) throws {
            if refuses { throw ConnectionError(.invalidRequest(reason: "refused by validate")) }
            try super.validate(response, data: data)
        }
    }

    /// The lines of `/lines`, as a stream on `owner`.
    final class Lines: LineStreamRequest, @unchecked Sendable {
        // Safe: only immutable stored properties.
        let target: URL
        let owner: ConnectionClient
        init(_ target: URL, on owner: ConnectionClient) { (self.target, self.owner) = (target, owner) }
        override var url: URL? { target }
        override var client: ConnectionClient { owner }
    }

    static func run(paths: Paths, client: ConnectionClient) async {
        await successAndFailures(paths, client)
        await cancels(paths, client)
        await waits(paths, client)
        await cacheAnswers(paths, client)
        await handlersAndStreams(paths, client)
        await path("shutdown") {
            let held = Probe(paths.url("/hold"), on: client)
            let events = client.registry.events
            let ending = Task { try await held.value() }
            await started(held, in: events)
            await client.shutdown(gracePeriod: 0.1)
            return try await ending.value
        }
    }

    private static func successAndFailures(_ paths: Paths, _ client: ConnectionClient) async {
        await path("success") { try await Probe(paths.url("/ok"), on: client).value() }
        await path("failure") { try await Probe(paths.url("/status/500"), on: client).value() }
        await path("validation") { try await Probe(paths.url("/ok"), on: client, refuses: true).value() }
        await path("before-any-transfer") { try await Probe(nil, on: client).value() }
        let twice = RetryPolicy(maximumAttempts: 2, initialBackoff: 0.01, jitter: 0)
        await path("retry-given-up") { try await Probe(paths.url("/status/503"), on: client, retries: twice).value() }
    }

    private static func cancels(_ paths: Paths, _ client: ConnectionClient) async {
        await path("cancel") {
            let held = Probe(paths.url("/hold"), on: client)
            let events = client.registry.events
            let ending = Task { try await held.value() }
            await started(held, in: events)
            DispatchQueue.global().async { held.cancel() }
            return try await ending.value
        }
        await path("task-cancel") {
            let held = Probe(paths.url("/hold"), on: client)
            let events = client.registry.events
            let ending = Task { try await held.value() }
            await started(held, in: events)
            ending.cancel()
            return try await ending.value
        }
    }

    private static func waits(_ paths: Paths, _ client: ConnectionClient) async {
        await path("timeout") { try await Probe(paths.url("/hold"), on: client, timeout: 0.3).value() }
        var bounded = RetryPolicy.retryOnTimeout(times: 3)
        bounded.deadline = 0.3
        await path("deadline") { try await Probe(paths.url("/hold"), on: client, retries: bounded).value() }
    }

    private static func cacheAnswers(_ paths: Paths, _ client: ConnectionClient) async {
        let cache = HTTPCache.inMemory()
        await path("cache-store") { try await Probe(paths.url("/fresh"), on: client, cache: cache).value() }
        await path("cache-hit") { try await Probe(paths.url("/fresh"), on: client, cache: cache).value() }
        await path("stale-store") {
            try await Probe(paths.url("/stale-then-fail"), on: client, cache: cache, policy: .offlineFirst).value()
        }
        await path("stale-answer") {
            try await Probe(paths.url("/stale-then-fail"), on: client, cache: cache, policy: .offlineFirst).value()
        }
    }

    private static func handlersAndStreams(_ paths: Paths, _ client: ConnectionClient) async {
        await path("handlers") {
            let request = Probe(paths.url("/ok"), on: client)
            let seen = Seen()
            request.progressHandler = { _ in seen.add("progress") }
            request.completionHandler = { _ in seen.add("completion") }
            let body = try await request.value()
            return Data("\(seen.names.last ?? "none") \(body.count)".utf8)
        }
        await path("stream") { Data("\(try await Lines(paths.url("/lines"), on: client).value())".utf8) }
        await path("elements") {
            var lines: [String] = []
            for try await line in Lines(paths.url("/lines"), on: client).elements() { lines.append(line) }
            return Data(lines.joined(separator: ",").utf8)
        }
    }

    /// Runs one path and prints how it ended: `ok <body>`, or the kind of its error.
    private static func path(_ name: String, _ body: () async throws -> Data) async {
        FileHandle.standardOutput.write(Data("START \(name)\n".utf8))
        let result: String
        do {
            result = "ok \(String(decoding: try await body().prefix(64), as: UTF8.self))"
        } catch let error as ConnectionError {
            result = "\(error.kind.name)"
        } catch {
            result = "other \(error)"
        }
        FileHandle.standardOutput.write(Data("ENDED \(name) \(result)\n".utf8))
    }

    /// Returns once `request`'s run began, as its client's `events` (subscribed before the start) tell.
    private static func started(_ request: AnyConnectionRequest, in events: AsyncStream<ConnectionEvent>) async {
        for await event in events where event.snapshot.identifier == request.identifier {
            return
        }
    }

    /// Names noted by handlers, in order.
    final class Seen: @unchecked Sendable {
        // Safe: `names` is only touched while `lock` is held.
        private let lock = NSLock()
        private var list: [String] = []
        func add(_ name: String) { lock.withLock { list.append(name) } }
        var names: [String] { lock.withLock { list } }
    }
}
