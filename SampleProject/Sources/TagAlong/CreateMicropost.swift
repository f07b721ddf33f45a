import ConnectionKit
import Foundation

/// `POST microposts.json`: posts a micropost as the logged-in user.
final class CreateMicropost: TagAlongRequest<Micropost>, @unchecked Sendable {
    // Safe: a `let` set once in init.
    private let post: Micropost

    init(text: String) {
        post = Micropost(id: nil, text: text)
        super.init()
    }

    override var path: String { "microposts.json" }
    override var httpMethod: HTTPMethod { .post }
    override var bodyObject: (any Encodable & Sendable)? { post }
}
