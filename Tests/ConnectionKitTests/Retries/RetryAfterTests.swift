import ConnectionKit
import ConnectionKitTesting
import Foundation
import Testing

/// `Retry-After` in seconds and as an HTTP date, capped by `maximumRetryAfter`.
@Suite(.offThePool, .exclusive, .timeLimit(.minutes(20))) struct RetryAfterTests {
    private static func httpDate(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        return formatter.string(from: date)
    }

    /// 503 with `Retry-After` from `value()` the first time, then "ok"; returns the gap between the two.
    private func gap(retryAfter value: @escaping @Sendable () -> String, policy: RetryPolicy) async throws
        -> TimeInterval?
    {
        let server = try TestServer.started()
        defer { server.stop() }
        let counter = Counter()
        server.route("/later") { _ in
            counter.next() == 1 ? TestResponse(status: 503, headers: [TestHeader("Retry-After", value())]) : .text("ok")
        }
        let ending = await run(RetryingRequest(server.url("/later"), policy: policy))
        #expect(ending?.data == Data("ok".utf8))
        #expect(server.hits("/later") == 2)
        return gaps(server, "/later").first
    }

    @Test func secondsOverrideTheBackoff() async throws {
        let measured = try await gap(retryAfter: { "1" }, policy: testPolicy(attempts: 2, backoff: 0.01))
        expectGaps(measured.map { [$0] } ?? [], within: [1...1])
    }

    @Test func anHTTPDateIsHonoured() async throws {
        // The date has whole seconds: "now + 2 s" truncated leaves a wait in (1, 2].
        let measured = try await gap(
            retryAfter: { Self.httpDate(Date().addingTimeInterval(2)) }, policy: testPolicy(attempts: 2, backoff: 0.01))
        expectGaps(measured.map { [$0] } ?? [], within: [1...2])
    }

    @Test func longWaitsAreCapped() async throws {
        var policy = testPolicy(attempts: 2, backoff: 0.01)
        policy.maximumRetryAfter = 0.3
        let seconds = try await gap(retryAfter: { "3600" }, policy: policy)
        expectGaps(seconds.map { [$0] } ?? [], within: [0.3...0.3])
        let date = try await gap(retryAfter: { Self.httpDate(Date().addingTimeInterval(3600)) }, policy: policy)
        expectGaps(date.map { [$0] } ?? [], within: [0.3...0.3])
    }

    @Test func ignoredWhenNotHonouredOrUnreadable() async throws {
        var policy = testPolicy(attempts: 2, backoff: 0.05)
        policy.honoursRetryAfter = false
        let ignored = try await gap(retryAfter: { "3600" }, policy: policy)
        expectGaps(ignored.map { [$0] } ?? [], within: [0.05...0.05])
        let unreadable = try await gap(retryAfter: { "in a while" }, policy: testPolicy(attempts: 2, backoff: 0.05))
        expectGaps(unreadable.map { [$0] } ?? [], within: [0.05...0.05])
    }
}
