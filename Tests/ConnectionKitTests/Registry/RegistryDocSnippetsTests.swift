import ConnectionKit
import Foundation
import Testing

/// The examples of docs/registry-and-debugging.md, compiled (namespaced so that they cannot clash
/// with other docs' examples). Only the parts that need no network run.
enum RegistryDocs {
    struct Event: Decodable, Sendable {
        let id: Int
        let name: String
    }

    class FeedRequest: JSONConnectionRequest<[Event]>, @unchecked Sendable {
        // Safe: no stored state; every hook is a computed override.
        override var baseURL: URL? { URL(string: "https://api.example.com/v1/") }
    }

    final class NewsFeed: FeedRequest, @unchecked Sendable {
        // Safe: no stored state.
        override var path: String { "news.json" }
    }

    final class EventsFeed: FeedRequest, @unchecked Sendable {
        // Safe: no stored state.
        override var path: String { "events.json" }
        override var queryItems: [URLQueryItem] { [URLQueryItem(name: "api_key", value: "k-123456")] }
        override var authorization: Authorization? { .basic(username: "ada", password: "secret-pw") }
        override var secretQueryItems: Set<String> { ["api_key"] }
    }

    final class NoisyFeed: FeedRequest, @unchecked Sendable {
        // Safe: no stored state.
        override var path: String { "noisy.json" }
        override var isDebugOutputEnabled: Bool? { true }
    }

    final class QuietPing: FeedRequest, @unchecked Sendable {
        // Safe: no stored state.
        override var path: String { "ping" }
        override var isDebugOutputEnabled: Bool? { false }
    }

    final class CreateEvent: FeedRequest, @unchecked Sendable {
        // Safe: no stored state.
        override var path: String { "events" }
        override var httpMethod: HTTPMethod { .post }
        override var requestHeaderFields: [String: String] { ["Content-Type": "application/json"] }
        override var bodyData: Data? { Data(#"{"name":"Bob's party"}"#.utf8) }
    }

    final class SearchPlaces: FeedRequest, @unchecked Sendable {
        // Safe: no stored state.
        override var path: String { "places" }
        override var requestHeaderFields: [String: String] { ["X-Api-Key": "k-987654"] }
        override var queryItems: [URLQueryItem] { [URLQueryItem(name: "token", value: "t-123456")] }
        override var secretHeaderFields: Set<String> { ["X-Api-Key"] }
        override var secretQueryItems: Set<String> { ["token"] }
    }

    /// Compiled, never called: these lines would reach the network or change global switches.
    static func compiledOnly() {
        NewsFeed().start()
        let registry = ConnectionRegistry.shared
        _ = registry.isInUse(NewsFeed.self)
        let feeds: [FeedRequest] = registry.requests(of: FeedRequest.self)
        _ = feeds
        _ = registry.activeRequests
        registry.cancelAll(FeedRequest.self)
        registry.cancelAll()
        for snapshot in ConnectionRegistry.shared.snapshot() {
            print(
                snapshot.typeName, snapshot.identifier, snapshot.method, snapshot.redactedURL ?? "-",
                snapshot.state, snapshot.dateStarted as Any, snapshot.elapsed,
                snapshot.bytesSent, snapshot.bytesExpectedToSend as Any,
                snapshot.bytesReceived, snapshot.bytesExpectedToReceive as Any,
                snapshot.attempt, snapshot.statusCode as Any)
        }
        print(ConnectionRegistry.shared.debugDump())
        let watcher = Task {
            for await event in ConnectionRegistry.shared.events {
                switch event.kind {
                case .started: print("→", event.snapshot.typeName)
                case .progressed(let progress): print("…", progress.direction, progress.completedBytes)
                case .retried(let attempt, let delay, let error): print("↻", attempt, delay, error)
                case .finished(let statusCode): print("✓", statusCode ?? 0, event.snapshot.elapsed)
                case .failed(let error): print("✗", error)
                case .cancelled: print("⊘", event.snapshot.typeName)
                }
            }
        }
        watcher.cancel()
        let observation = NetworkActivity.shared.observe { isActive in print(isActive) }
        observation.cancel()
        let indicator = Task { for await isActive in NetworkActivity.shared.changes { print(isActive) } }
        indicator.cancel()
        ConnectionDebug.isEnabled = true
        ConnectionDebug.sink = { block in FileHandle.standardOutput.write(Data(block.utf8)) }
        ConnectionDebug.bodyPreviewLimit = 256
        ConnectionDebug.sink = ConnectionDebug.standardErrorSink
    }
}

@Suite struct RegistryDocSnippetsTests {
    @Test func theCURLExampleRendersAsDocumented() {
        let expected = """
            curl --request 'POST' \\
              --header 'Accept: application/json' \\
              --header 'Content-Type: application/json' \\
              --data-binary '{"name":"Bob'\\''s party"}' \\
              'https://api.example.com/v1/events'
            """
        #expect(RegistryDocs.CreateEvent().cURLDescription == expected)
    }

    @Test func secretsInTheExamplesAreRedacted() {
        let curl = RegistryDocs.EventsFeed().cURLDescription
        #expect(curl.contains("'Authorization: <redacted>'"))
        #expect(curl.contains("api_key=<redacted>"))
        let places = RegistryDocs.SearchPlaces().cURLDescription
        #expect(places.contains("'X-Api-Key: <redacted>'") && places.contains("token=<redacted>"))
        #expect(!places.contains("k-987654") && !places.contains("t-123456"))
    }

    @Test func theClassHooksAreAsDocumented() {
        #expect(RegistryDocs.NoisyFeed().isDebugOutputEnabled == true)
        #expect(RegistryDocs.QuietPing().isDebugOutputEnabled == false)
        #expect(RegistryDocs.NewsFeed().isDebugOutputEnabled == nil)
    }
}
