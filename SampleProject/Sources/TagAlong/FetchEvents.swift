import ConnectionKit
import Foundation

/// An event a user can tag along to.
struct Event: Codable, Sendable {
    let id: Int
    let name: String
    let date: String
}

/// `GET events.json`: the list of events.
final class FetchEvents: TagAlongRequest<[Event]>, @unchecked Sendable {
    override var path: String { "events.json" }
}
