import Foundation
import Testing

/// Polls `condition` every 10 ms until it holds; records an issue after `timeout` and returns `false`. For a
/// state that no event announces (a free list, a session's invalidation, a caller joining a run).
func eventually(
    timeout: TimeInterval = 20, sourceLocation: SourceLocation = #_sourceLocation, _ condition: () -> Bool
) async -> Bool {
    let deadline = Date().addingTimeInterval(timeout * testTimeScale)
    while !condition() {
        guard Date() < deadline else {
            Issue.record("condition not met within \(timeout) s", sourceLocation: sourceLocation)
            return false
        }
        try? await Task.sleep(nanoseconds: 10_000_000)
    }
    return true
}
