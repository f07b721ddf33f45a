import ConnectionKit
import Foundation

/// `GET live`: the live check-in feed, as server-sent events. A drop mid-feed is reconnected with
/// `Last-Event-ID` after the server's `retry` time (ServerSentEventsRequest's default policy).
final class FollowCheckIns: ServerSentEventsRequest, @unchecked Sendable {
    // Safe: no stored state of its own.

    override init() {
        super.init()
        callbackQueue = AppConfiguration.callbackQueue
    }

    override var baseURL: URL? { AppConfiguration.shared.baseURL }

    override var path: String { "live" }

    /// The feed sends a check-in every fraction of a second: silence for 10 s means the connection is gone.
    override var timeoutInterval: TimeInterval { 10 }
}
