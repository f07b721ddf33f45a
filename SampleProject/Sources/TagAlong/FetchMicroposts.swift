import ConnectionKit
import Foundation

/// `GET microposts.json`: every micropost the server has.
final class FetchMicroposts: TagAlongRequest<[Micropost]>, @unchecked Sendable {
    override var path: String { "microposts.json" }
}
