import ConnectionKitTesting
import Foundation
import Testing

@testable import ConnectionKit

/// A run awaited with `value()` ends in the awaiting task on every path: proven in a child process whose main
/// thread is blocked on a semaphore, so that nothing serves the main queue (every request's default
/// `callbackQueue`). An ending, a progress report or a streamed element that waited for that queue would never
/// come, and its path would never print its `ENDED` line.
@Suite("value() ends in the awaiting task, on every path", .offThePool, .timeLimit(.minutes(5)))
struct AwaitedEndingsTests {
    /// Each path the child runs, and how it must end.
    static let expected: KeyValuePairs<String, String> = [
        "success": "ok ok",
        "failure": "unacceptableStatusCode",
        "validation": "invalidRequest",
        "before-any-transfer": "invalidRequest",
        "retry-given-up": "unacceptableStatusCode",
        "cancel": "cancelled",
        "task-cancel": "cancelled",
        "timeout": "timedOut",
        "deadline": "timedOut",
        "cache-store": "ok fresh",
        "cache-hit": "ok fresh",
        "stale-store": "ok stale",
        "stale-answer": "ok stale",
        "handlers": "ok completion 2",
        "stream": "ok 3",
        "elements": "ok a,b,c",
        "shutdown": "cancelled",
    ]

    @Test(
        "every ending of a value() run comes with the main queue never served",
        arguments: [("urlSession", "shared"), ("urlSession", "own"), ("libcurl", "shared"), ("libcurl", "own")])
    func everyEndingComesWithoutTheMainQueue(transport: String, client: String) async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        Self.routes(on: server)
        let child = try ChildProcess(["awaited-endings", server.url("/").absoluteString, transport, client])
        // Waited for off the cooperative pool (`finish` waits on a thread of its own).
        let (status, printed) = await child.finish(timeout: 60)
        let ended = Dictionary(
            printed.split(separator: "\n").compactMap { line -> (String, String)? in
                let words = line.split(separator: " ", maxSplits: 2).map(String.init)
                guard words.count == 3, words[0] == "ENDED" else { return nil }
                return (words[1], words[2])
            }, uniquingKeysWith: { first, _ in first })
        for (path, result) in Self.expected {
            #expect(ended[path] == result, "\(path) on \(transport), \(client) client; the child printed:\n\(printed)")
        }
        #expect(status == 0, "\(printed)")
        #expect(server.hits("/status/503") == 2, "the retry was made before the run gave up")
        #expect(server.hits("/fresh") == 1, "the second GET was answered by the cache")
        #expect(server.hits("/stale-then-fail") == 2, "the stale answer followed a failed request")
    }

    /// The routes `ChildProcessHelper awaited-endings` asks for.
    static func routes(on server: TestServer) {
        server.route("/ok") { _ in .text("ok") }
        server.route("/status/500") { _ in .status(500) }
        server.route("/status/503") { _ in .status(503) }
        // Answers only when the server stops, which cuts the wait short.
        server.route("/hold") { _ in TestResponse(body: .data(Data("late".utf8)), delayBeforeHeaders: 600) }
        server.route("/fresh") { _ in
            TestResponse(headers: [TestHeader("Cache-Control", "max-age=60")], body: .data(Data("fresh".utf8)))
        }
        let staleCalls = Locked(0)
        server.route("/stale-then-fail") { _ in
            guard staleCalls.increment() == 1 else { return .status(500) }
            return TestResponse(headers: [TestHeader("Cache-Control", "max-age=0")], body: .data(Data("stale".utf8)))
        }
        server.route("/lines") { _ in .text("a\nb\nc\n") }
    }
}
