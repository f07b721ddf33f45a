import ConnectionKit
import Foundation

/// An event a user can tag along to.
struct Event: Codable, Sendable {
    let id: Int
    let name: String
    let date: String
}

/// `GET events.json`: the list of events, offline first: when the server cannot be reached, the list
/// stored by the last read answers, however old (`responseSource` says so).
final class FetchEvents: TagAlongRequest<[Event]>, @unchecked Sendable {
    override var path: String { "events.json" }

    override var httpCache: HTTPCache? { AppConfiguration.shared.httpCache }

    override var cachePolicy: HTTPCachePolicy { .offlineFirst }

    /// The list is public: sent without the user's token, so one stored list serves before and after a
    /// login (the cache keeps a separate entry per credential).
    override var authorization: Authorization? { nil }
}
