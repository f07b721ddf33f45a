import Foundation

@testable import ConnectionKit

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `Retry-After` (delta-seconds or an HTTP date, RFC 9110 §10.2.3) from a response: whatever the
/// header says, the wait is a finite number of seconds between 0 and `maximumRetryAfter`.
enum HTTPDateFuzz {
    static let policy = RetryPolicy()
    static let url = URL(string: "http://127.0.0.1/")!
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func run(_ input: Data) {
        let value = String(decoding: input, as: UTF8.self)
        _ = HTTPDate.parse(value)
        let response = ConnectionResponse(
            url: url, statusCode: 503, httpVersion: "HTTP/1.1", headerFields: ["Retry-After": value])
        guard let wait = policy.retryAfterDelay(from: response, now: now) else { return }
        guard wait.isFinite, wait >= 0, wait <= policy.maximumRetryAfter else {
            fatalError("Retry-After gave a wait of \(wait) s")
        }
    }
}
