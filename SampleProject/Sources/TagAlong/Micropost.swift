import Foundation

/// A short post, as the seed tutorial's Twitter clone has them.
struct Micropost: Codable, Sendable {
    var id: Int?
    let text: String
}
