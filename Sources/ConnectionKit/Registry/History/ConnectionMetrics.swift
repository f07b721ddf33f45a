import Foundation

/// What a request's run measured, attempt by attempt: ConnectionKit's own timings on every transport,
/// and the connection-level details (name lookup, connect, TLS, first byte, bytes each way, reuse,
/// protocol, remote address) where the transport reports them.
///
/// Read it from ``AnyConnectionRequest/metrics`` (from any thread), in every ``ConnectionSnapshot``
/// (so in the registry's events, including the final `finished` or `failed` one), and in the debug
/// output's response block. The libcurl transport fills every field; URLSession does on Apple
/// platforms; URLSession on Linux never delivers metrics, so there the connection-level fields are
/// `nil` and only ConnectionKit's own timings are set.
public struct ConnectionMetrics: Sendable, Hashable, Codable {
    /// One entry per attempt of the run, in order (a retry adds one; redirect hops do not).
    public var attempts: [ConnectionAttemptMetrics]

    /// Creates metrics made of `attempts`.
    public init(attempts: [ConnectionAttemptMetrics] = []) {
        self.attempts = attempts
    }

    /// The last attempt's metrics (the one that produced the result); `nil` before the first attempt.
    public var last: ConnectionAttemptMetrics? { attempts.last }
}
