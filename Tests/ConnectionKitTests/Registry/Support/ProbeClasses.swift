import ConnectionKit
import Foundation

// A small class tree for cancel-by-class: FeedProbe ← NewsFeedProbe ← BreakingNewsProbe, and an
// unrelated sibling, ProfileProbe. Each suite uses its own leaf classes so that parallel suites
// never see each other's requests.

class FeedProbe: Probe, @unchecked Sendable {}  // Safe: no state of its own.
class NewsFeedProbe: FeedProbe, @unchecked Sendable {}  // Safe: no state of its own.
final class BreakingNewsProbe: NewsFeedProbe, @unchecked Sendable {}  // Safe: no state of its own.
final class ProfileProbe: Probe, @unchecked Sendable {}  // Safe: no state of its own.

/// Thousands of runs on a client of its own: in the shared client's history (1,000 runs) they would push
/// out the records that tests running beside them look for.
final class StressProbe: Probe, @unchecked Sendable {  // Safe: no state of its own.
    static let client = ConnectionClient.ownForTests(label: "registry-stress")
    override var client: ConnectionClient { Self.client }
}
final class QueryProbe: Probe, @unchecked Sendable {}  // Safe: no state of its own.
final class EventProbe: Probe, @unchecked Sendable {}  // Safe: no state of its own.
final class ActivityProbe: Probe, @unchecked Sendable {}  // Safe: no state of its own.
final class DumpProbe: Probe, @unchecked Sendable {}  // Safe: no state of its own.
final class CURLProbe: Probe, @unchecked Sendable {}  // Safe: no state of its own.

/// Prints debug output (per-class switch) and declares secrets.
class DebugProbe: Probe, @unchecked Sendable {  // Safe: no state of its own.
    override var isDebugOutputEnabled: Bool? { true }
    override var secretHeaderFields: Set<String> { ["X-Api-Key"] }
    override var secretQueryItems: Set<String> { ["token"] }
}

/// Declares secrets but follows the global switch.
final class SecretProbe: Probe, @unchecked Sendable {  // Safe: no state of its own.
    override var secretHeaderFields: Set<String> { ["X-Api-Key"] }
    override var secretQueryItems: Set<String> { ["token"] }
}

/// Never prints, whatever the global switch says.
final class SilentProbe: Probe, @unchecked Sendable {  // Safe: no state of its own.
    override var isDebugOutputEnabled: Bool? { false }
}
