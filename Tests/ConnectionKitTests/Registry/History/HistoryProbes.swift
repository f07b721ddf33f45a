import ConnectionKit
import Foundation

// Classes of the history suites only, so that parallel suites never see each other's runs:
// HistoryProbe ← HistoryLeafProbe, and unrelated siblings for statistics and HAR.

/// Retries twice on 500, declares `X-Api-Key` and `token` secret.
class HistoryProbe: Probe, @unchecked Sendable {  // Safe: no state of its own.
    override var retryPolicy: RetryPolicy { testPolicy(attempts: 3, backoff: 0.02) }
    override var secretHeaderFields: Set<String> { ["X-Api-Key"] }
    override var secretQueryItems: Set<String> { ["token"] }
}

final class HistoryLeafProbe: HistoryProbe, @unchecked Sendable {}  // Safe: no state of its own.
final class HistorySiblingProbe: Probe, @unchecked Sendable {}  // Safe: no state of its own.
final class StatisticsProbe: HistoryProbe, @unchecked Sendable {}  // Safe: no state of its own.
final class HARProbe: HistoryProbe, @unchecked Sendable {}  // Safe: no state of its own.
final class SyntheticProbeA: Probe, @unchecked Sendable {}  // Safe: no state of its own.
final class SyntheticProbeB: Probe, @unchecked Sendable {}  // Safe: no state of its own.
final class SyntheticLeafProbe: Probe, @unchecked Sendable {}  // Safe: no state of its own.

/// Opts in to debug output, and so to a body preview in its history records.
final class PreviewProbe: HistoryProbe, @unchecked Sendable {  // Safe: no state of its own.
    override var isDebugOutputEnabled: Bool? { true }
}
