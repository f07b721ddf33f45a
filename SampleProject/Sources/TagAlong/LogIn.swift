import ConnectionKit
import Foundation

/// What a successful login returns.
struct SessionToken: Codable, Sendable {
    let token: String
}

/// `POST session.json` with the user's name and password as Basic credentials: returns a token.
final class LogIn: TagAlongRequest<SessionToken>, @unchecked Sendable {
    // Safe: `lets` set once in init.
    private let user: String
    private let password: String

    init(user: String, password: String) {
        self.user = user
        self.password = password
        super.init()
    }

    override var path: String { "session.json" }
    override var httpMethod: HTTPMethod { .post }
    override var authorization: Authorization? { .basic(username: user, password: password) }
}
