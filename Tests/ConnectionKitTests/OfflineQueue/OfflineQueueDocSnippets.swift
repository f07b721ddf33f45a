// The code of docs/offline-queue.md, kept compiling (and the parts that need no network, running).
import ConnectionKit
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

struct Micropost: Encodable, Sendable {
    let content: String
}

/// Where the app keeps the signed-in user's token (the tutorial used the keychain).
enum TokenStore {
    static func currentToken() -> String? { UserDefaults.standard.string(forKey: "token") }
}

/// Your endpoint, as usual: one subclass per endpoint, credentials from `authorization`.
final class PostMicropost: JSONConnectionRequest<JSON>, @unchecked Sendable {
    let post: Micropost?

    init(post: Micropost? = nil) {
        self.post = post
        super.init()
    }

    override var baseURL: URL? { URL(string: "https://api.example.com/v1/") }
    override var path: String { "microposts" }
    override var httpMethod: HTTPMethod { .post }
    override var bodyObject: (any Encodable & Sendable)? { post }
    override var authorization: Authorization? { TokenStore.currentToken().map { .bearer($0) } }
}

@Suite("OfflineQueue doc snippets")
struct OfflineQueueDocSnippets {
    @Test("the guide's examples compile and run against a suspended queue")
    func guideExamples() throws {
        let outbox = OfflineFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: outbox) }
        let queue = try OfflineQueue(directory: outbox)
        // Nothing leaves the machine in this test.
        queue.suspend()
        queue.register(PostMicropost.self) { PostMicropost() }

        let operation = try queue.enqueue(PostMicropost(post: Micropost(content: "Send when you can")))
        print(operation.id, operation.sequence, operation.idempotencyKey)
        #expect(queue.pending.first?.typeName == "PostMicropost")
        #expect(queue.pending.first?.headerFields["Content-Type"] == "application/json")

        var configuration = OfflineQueue.Configuration()
        configuration.onlineRetryInterval = 1
        configuration.offlineRetryInterval = 10
        configuration.backoff = RetryPolicy(initialBackoff: 1, backoffMultiplier: 2, maximumBackoff: 300)
        configuration.maximumAttempts = 50
        configuration.maximumAge = 3 * 24 * 3600
        configuration.callbackQueue = .main
        let tunedQueue = try OfflineQueue(
            directory: outbox.appendingPathComponent("tuned"), configuration: configuration)
        tunedQueue.close()

        queue.deliveredHandler = { operation, responseBody in
            print("delivered \(operation.idempotencyKey) after \(operation.attempts) attempt(s)")
        }
        queue.deadLetterHandler = { letter in
            print("gave up on \(letter.operation.typeName): \(letter.reason) (status \(letter.statusCode ?? 0))")
        }
        queue.failedAttemptHandler = { attempt in
            let next = attempt.retryDelay.map { "next try in \($0) s" } ?? "dead-lettered"
            print(attempt.reachedServer ? "server error" : "offline", "–", next)
        }

        for operation in queue.pending {
            print(operation.sequence, operation.method, operation.url, "attempts:", operation.attempts)
        }
        for letter in queue.deadLetters {
            print(letter.operation.url, letter.reason)
        }
        if let stuck = queue.deadLetters.first {
            try queue.remove(stuck.operation)
        }
        #expect(try queue.remove(operation))
        queue.close()
    }

    /// Compiled, not run: it would reach api.example.com.
    func startViaQueue(queue: OfflineQueue) {
        let request = PostMicropost(post: Micropost(content: "Hello from the train"))
        request.completionHandler = { created in print("posted:", created) }
        request.failureHandler = { error in print("can't post at this time:", error) }
        request.start(via: queue) { operation in
            print("queued as \(operation.idempotencyKey); \(queue.pending.count) waiting")
        }
        queue.register(typeName: "OldName") { PostMicropost() }
        queue.suspend()
        queue.resume()
        queue.setReachable(true)
    }
}
