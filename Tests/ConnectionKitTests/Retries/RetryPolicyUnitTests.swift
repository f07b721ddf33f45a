import ConnectionKit
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The policy's arithmetic, without a server.
@Suite(.offThePool, .timeLimit(.minutes(3))) struct RetryPolicyUnitTests {
    private func response(retryAfter: String?) -> ConnectionResponse? {
        ConnectionResponse(
            url: URL(string: "http://127.0.0.1/")!, statusCode: 503, httpVersion: "HTTP/1.1",
            headerFields: retryAfter.map { ["Retry-After": $0] } ?? [:])
    }

    @Test func defaultsAreDocumented() {
        let policy = RetryPolicy.default
        #expect(policy.maximumAttempts == 3)
        #expect(policy.initialBackoff == 0.5 && policy.backoffMultiplier == 2 && policy.maximumBackoff == 30)
        #expect(policy.jitter == 0.2)
        #expect(policy.retryableStatusCodes == [408, 429, 500, 502, 503, 504])
        #expect(policy.retryableMethods.allSatisfy { $0.isIdempotent })
        #expect(!policy.retryableMethods.contains(.post) && !policy.retryableMethods.contains(.patch))
        #expect(policy.deadline == nil)
        #expect(RetryPolicy.none.maximumAttempts == 1)
        #expect(RetryPolicy.retryOnTimeout(times: 3).maximumAttempts == 4)
        #expect(RetryPolicy.retryOnTimeout(times: -1).maximumAttempts == 1)
        #expect(RetryPolicy.retryOnTimeout(times: .max).maximumAttempts == .max)
    }

    @Test func exponentialBackoffIsCapped() {
        let policy = RetryPolicy(initialBackoff: 0.1, backoffMultiplier: 3, maximumBackoff: 1, jitter: 0)
        #expect(policy.backoff(beforeRetry: 1) == 0.1)
        #expect(abs(policy.backoff(beforeRetry: 2) - 0.3) < 1e-9)
        #expect(abs(policy.backoff(beforeRetry: 3) - 0.9) < 1e-9)
        #expect(policy.backoff(beforeRetry: 4) == 1)
        #expect(policy.backoff(beforeRetry: 10_000) == 1)
    }

    @Test func jitterStaysWithinItsSpreadAndUnderTheCap() {
        let policy = RetryPolicy(initialBackoff: 1, backoffMultiplier: 2, maximumBackoff: 2.2, jitter: 0.25)
        let first = (0..<2_000).map { _ in policy.backoff(beforeRetry: 1) }
        #expect(first.allSatisfy { (0.75...1.25).contains($0) })
        #expect(first.max()! - first.min()! > 0.3, "jitter spreads the waits")
        // Retry 2 has base 2: jittered it would reach 2.5, but the cap holds.
        let second = (0..<2_000).map { _ in policy.backoff(beforeRetry: 2) }
        #expect(second.allSatisfy { (1.5...2.2).contains($0) })
    }

    @Test func absurdSettingsDoNotTrap() {
        let policy = RetryPolicy(
            initialBackoff: .nan, backoffMultiplier: .infinity, maximumBackoff: .infinity, jitter: 5)
        for retry in [0, 1, 2, 1_000, Int.max] {
            let wait = policy.backoff(beforeRetry: retry)
            #expect(wait >= 0 && wait.isFinite)
        }
    }

    @Test func retryAfterInSecondsAndAsDateIsCapped() {
        let policy = RetryPolicy(maximumRetryAfter: 60)
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        #expect(policy.retryAfterDelay(from: response(retryAfter: "7"), now: now) == 7)
        #expect(policy.retryAfterDelay(from: response(retryAfter: " 0 "), now: now) == 0)
        #expect(policy.retryAfterDelay(from: response(retryAfter: "86400"), now: now) == 60)
        // IMF-fixdate, RFC 850 and asctime, 30 s after `now`.
        for date in ["Tue, 14 Nov 2023 22:13:50 GMT", "Tuesday, 14-Nov-23 22:13:50 GMT", "Tue Nov 14 22:13:50 2023"] {
            #expect(policy.retryAfterDelay(from: response(retryAfter: date), now: now) == 30, "\(date)")
        }
        #expect(policy.retryAfterDelay(from: response(retryAfter: "Wed, 15 Nov 2023 22:13:20 GMT"), now: now) == 60)
        #expect(policy.retryAfterDelay(from: response(retryAfter: "Mon, 13 Nov 2023 22:13:20 GMT"), now: now) == 0)
        for junk in ["soon", "-5", "1e3", "inf", "nan", "", "1.5"] {
            #expect(policy.retryAfterDelay(from: response(retryAfter: junk), now: now) == nil, "\(junk)")
        }
        #expect(policy.retryAfterDelay(from: response(retryAfter: nil), now: now) == nil)
        // The http-date fuzz target's find: a combining mark inside the day made Foundation's DateFormatter
        // trap on Linux. A date that is not printable ASCII is no date.
        let hostile = String(
            decoding: Data(base64Encoded: "U3VuZGF5LCAwNsyxkIktOTQgMDg6MDo3IEdNVA==") ?? Data(), as: UTF8.self)
        #expect(!hostile.isEmpty)
        #expect(policy.retryAfterDelay(from: response(retryAfter: hostile), now: now) == nil)
        #expect(
            policy.retryAfterDelay(from: response(retryAfter: "Tue, 14 Nov 2023 22:13:50 GMT\u{301}"), now: now) == nil)
        var ignoring = policy
        ignoring.honoursRetryAfter = false
        #expect(ignoring.retryAfterDelay(from: response(retryAfter: "7"), now: now) == nil)
    }

    @Test func methodsStatusesAndErrors() {
        let policy = RetryPolicy.default
        let url = URL(string: "http://127.0.0.1/")!
        func request(_ method: String, key: String? = nil) -> URLRequest {
            var request = URLRequest(url: url)
            request.httpMethod = method
            if let key { request.setValue(key, forHTTPHeaderField: "Idempotency-Key") }
            return request
        }
        let unavailable = ConnectionError(.unacceptableStatusCode(503, body: nil))
        for method in ["GET", "HEAD", "OPTIONS", "PUT", "DELETE", "TRACE"] {
            #expect(policy.allowsRetry(of: unavailable, attempt: 1, request: request(method)), "\(method)")
        }
        #expect(!policy.allowsRetry(of: unavailable, attempt: 1, request: request("POST")))
        #expect(!policy.allowsRetry(of: unavailable, attempt: 1, request: request("PATCH")))
        #expect(policy.allowsRetry(of: unavailable, attempt: 1, request: request("POST", key: "k1")))
        #expect(policy.allowsRetry(of: unavailable, attempt: 1, request: request("PATCH", key: "k1")))
        #expect(!policy.allowsRetry(of: unavailable, attempt: 3, request: request("GET")), "attempt limit")
        #expect(
            !policy.allowsRetry(of: ConnectionError(.unacceptableStatusCode(404, body: nil)), attempt: 1, request: nil))
        #expect(policy.allowsRetry(of: .timedOut, attempt: 1, request: nil))
        #expect(!policy.allowsRetry(of: .cancelled, attempt: 1, request: nil))
        for code: URLError.Code in [
            .timedOut, .networkConnectionLost, .cannotConnectToHost, .cannotFindHost,
            .dnsLookupFailed, .notConnectedToInternet,
        ] {
            #expect(policy.allowsRetry(of: ConnectionError(.transport(URLError(code))), attempt: 1, request: nil))
        }
        #expect(
            !policy.allowsRetry(of: ConnectionError(.transport(URLError(.badServerResponse))), attempt: 1, request: nil)
        )
        #expect(!policy.allowsRetry(of: ConnectionError(.responseTooLarge(limit: 1)), attempt: 1, request: nil))
        #expect(
            !policy.allowsRetry(of: ConnectionError(.parsing(underlying: URLError(.unknown))), attempt: 1, request: nil)
        )
        let timeouts = RetryPolicy.retryOnTimeout(times: 2)
        #expect(timeouts.allowsRetry(of: .timedOut, attempt: 2, request: nil))
        #expect(!timeouts.allowsRetry(of: .timedOut, attempt: 3, request: nil))
        #expect(!timeouts.allowsRetry(of: unavailable, attempt: 1, request: nil))
        #expect(
            !timeouts.allowsRetry(
                of: ConnectionError(.transport(URLError(.networkConnectionLost))), attempt: 1, request: nil))
    }
}
