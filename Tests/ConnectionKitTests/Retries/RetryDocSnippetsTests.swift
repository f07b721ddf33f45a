import ConnectionKit
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The snippets of docs/retries-and-deadlines.md, compiled (namespaced so that their names cannot
/// clash with other tests'). Keep both in step.
enum RetryDocSnippets {
    struct Event: Decodable, Sendable {
        let id: Int
        let name: String
    }

    final class FetchEvents: JSONConnectionRequest<[Event]>, @unchecked Sendable {
        override var url: URL? { URL(string: "https://api.example.com/events.json") }
        override var retryPolicy: RetryPolicy { .default }
    }

    struct NewOrder: Encodable, Sendable {
        let item: String
        let quantity: Int
    }

    final class PlaceOrder: JSONConnectionRequest<JSON>, @unchecked Sendable {
        // Safe: immutable after init.
        let order: NewOrder
        let idempotencyKey = UUID().uuidString  // one key per order, the same on every attempt

        init(order: NewOrder) {
            self.order = order
            super.init()
        }

        override var url: URL? { URL(string: "https://api.example.com/orders") }
        override var httpMethod: HTTPMethod { .post }
        override var bodyObject: (any Encodable & Sendable)? { order }
        override var requestHeaderFields: [String: String] { ["Idempotency-Key": idempotencyKey] }
        override var retryPolicy: RetryPolicy { .default }
    }

    static func patientPolicy() -> RetryPolicy {
        var patient = RetryPolicy.default
        patient.maximumAttempts = 5  // attempts in all, the first included (default 3)
        patient.initialBackoff = 0.2  // wait before the first retry, seconds (default 0.5)
        patient.backoffMultiplier = 3  // each further wait is this many times longer (default 2)
        patient.maximumBackoff = 10  // no wait exceeds this, jitter included (default 30)
        patient.jitter = 0.5  // each wait is randomised by ±50% (default 0.2; 0 = none)
        patient.retryableStatusCodes.insert(409)
        patient.retryableURLErrorCodes.remove(.cannotFindHost)
        patient.retryableMethods.insert(.post)  // only if your POSTs are really idempotent
        patient.maximumRetryAfter = 120  // longest Retry-After honoured, seconds (default 60)
        patient.deadline = 30  // all attempts and waits together, seconds (default nil)
        return patient
    }

    final class SlowReport: BasicConnectionRequest, @unchecked Sendable {
        override var url: URL? { URL(string: "https://api.example.com/report") }
        override var timeoutInterval: TimeInterval { 10 }
        override var retryPolicy: RetryPolicy { .retryOnTimeout(times: 2) }
    }

    final class Quote: JSONConnectionRequest<JSON>, @unchecked Sendable {
        override var url: URL? { URL(string: "https://api.example.com/quote") }
        override var timeoutInterval: TimeInterval { 5 }
        override var retryPolicy: RetryPolicy {
            var policy = RetryPolicy.default
            policy.maximumAttempts = 10
            policy.deadline = 8
            return policy
        }
    }

    /// Our API answers 404 for a few seconds after an upload, until the object is indexed.
    final class FetchUploadedObject: JSONConnectionRequest<JSON>, @unchecked Sendable {
        // Safe: immutable after init.
        let objectID: String

        init(objectID: String) {
            self.objectID = objectID
            super.init()
        }

        override var url: URL? { URL(string: "https://api.example.com/objects/\(objectID)") }
        override var retryPolicy: RetryPolicy { .default }

        override func retryDecision(for error: ConnectionError, attempt: Int, response: HTTPURLResponse?)
            -> RetryDecision
        {
            if error.statusCode == 404, attempt < 4 {
                return .retry(after: 0.5 * Double(attempt))
            }
            if case .parsing = error.kind, attempt == 1 {
                return .retry(after: 1)  // a proxy's HTML error page: once
            }
            return super.retryDecision(for: error, attempt: attempt, response: response)
        }
    }

    static func logRetries() -> Task<Void, Never> {
        Task {
            for await event in ConnectionRegistry.shared.events {
                if case .retried(let attempt, let delay, let error) = event.kind {
                    print("\(event.snapshot.typeName): attempt \(attempt) in \(delay) s after \(error)")
                }
            }
        }
    }

    final class Thumbnail: BasicConnectionRequest, @unchecked Sendable {
        override var url: URL? { URL(string: "https://cdn.example.com/thumb.png") }
        override var maximumResponseBodySize: Int64 { 2 * 1024 * 1024 }  // default 128 MiB
        override var maximumResponseHeaderSize: Int { 16 * 1024 }  // default 128 KiB
        override var maximumRedirects: Int { 3 }  // default 10
    }
}

/// What the guide states about its snippets.
@Suite struct RetryDocSnippetsTests {
    @Test func thePatientPolicyWaitsAsTheGuideSays() {
        var policy = RetryDocSnippets.patientPolicy()
        policy.jitter = 0
        let waits = (1...4).map { policy.backoff(beforeRetry: $0) }
        #expect(zip(waits, [0.2, 0.6, 1.8, 5.4]).allSatisfy { abs($0 - $1) < 1e-9 })
        #expect(policy.backoff(beforeRetry: 10) == 10)
    }

    @Test func theSnippetsHaveTheirSettings() {
        #expect(RetryDocSnippets.FetchEvents().retryPolicy == .default)
        let order = RetryDocSnippets.PlaceOrder(order: .init(item: "tea", quantity: 2))
        #expect(order.requestHeaderFields["Idempotency-Key"] == order.idempotencyKey)
        #expect(RetryDocSnippets.SlowReport().retryPolicy == .retryOnTimeout(times: 2))
        #expect(RetryDocSnippets.Quote().retryPolicy.deadline == 8)
        let lookup = RetryDocSnippets.FetchUploadedObject(objectID: "a1")
        #expect(
            lookup.retryDecision(
                for: ConnectionError(.unacceptableStatusCode(404, body: nil)), attempt: 2, response: nil)
                == .retry(after: 1))
        #expect(lookup.retryDecision(for: .cancelled, attempt: 1, response: nil) == .doNotRetry)
        #expect(RetryDocSnippets.Thumbnail().maximumRedirects == 3)
        RetryDocSnippets.logRetries().cancel()
    }
}
