import Foundation

extension AnyConnectionRequest {
    /// What the current run (or, once it ended, the last run) measured, one entry per attempt:
    /// ConnectionKit's own timings, and the connection-level details where the transport reports
    /// them (every field over libcurl; over URLSession on Apple platforms; never over URLSession on
    /// Linux, where those fields stay `nil`). Empty before the first run. Safe to read from any thread.
    public var metrics: ConnectionMetrics {
        storage.withLock { ConnectionMetrics(attempts: $0.attemptMetrics) }
    }
}
