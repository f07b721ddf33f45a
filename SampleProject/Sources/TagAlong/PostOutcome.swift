import ConnectionKit
import Foundation

/// How a micropost ended: posted now, queued for later, or failed (already reported).
enum PostOutcome: Sendable {
    case posted(Micropost)
    case queued(QueuedOperation)
    case failed
}
