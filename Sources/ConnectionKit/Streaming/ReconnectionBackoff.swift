import Foundation

/// How long a ``ServerSentEventsRequest`` waits before it reconnects: the server's `retry` time,
/// held between a floor and a cap, and doubled for every connection in a row that dropped before it
/// was steady, so that a server that drops each connection (after an event or not) cannot make the
/// client reconnect in a loop.
struct ReconnectionBackoff: Sendable, Hashable {
    /// A connection that stayed open this long, in seconds, made progress: the next drop starts the
    /// backoff again.
    static let steadyConnection: TimeInterval = 10

    /// The shortest wait, in seconds, whatever the server's `retry` says.
    var minimum: TimeInterval
    /// Connections in a row that ended (or never answered) before ``steadyConnection``.
    private(set) var briefInARow = 0

    init(minimum: TimeInterval) {
        self.minimum = minimum
    }

    /// Records how long the dropped connection lasted (`nil`: no response arrived), and returns the
    /// wait before the next one. `policyWait` is what the retry policy decided; `serverRetry` the
    /// server's `retry` field in milliseconds, if it sent one. The result is finite and never
    /// shorter than ``minimum`` (when that is not negative) nor longer than the policy's longest wait.
    mutating func wait(
        policyWait: TimeInterval, serverRetry milliseconds: Int?, connected: TimeInterval?, policy: RetryPolicy
    ) -> TimeInterval {
        let floor = minimum.isFinite ? max(0, minimum) : 0
        let longest = max(floor, Self.finite(max(policy.maximumRetryAfter, policy.maximumBackoff), or: floor))
        if let connected, connected >= Self.steadyConnection {
            briefInARow = 0
        } else {
            briefInARow = min(briefInARow + 1, 64)
        }
        // A `retry` of days (or past Int.max, which the decoder keeps as Int.max) is cut to the cap.
        let base = milliseconds.map { Double($0) / 1000 } ?? Self.finite(policyWait, or: floor)
        var wait = min(max(base, floor), longest)
        if briefInARow > 1 {
            let multiplier =
                policy.backoffMultiplier.isFinite && policy.backoffMultiplier > 1
                ? policy.backoffMultiplier : 2
            let grown =
                max(floor, Self.finite(policy.initialBackoff, or: floor))
                * pow(multiplier, Double(min(briefInARow - 1, 32)))
            wait = max(wait, min(grown, longest))
        }
        return wait
    }

    private static func finite(_ value: TimeInterval, or fallback: TimeInterval) -> TimeInterval {
        value.isFinite && value >= 0 ? value : fallback
    }
}
