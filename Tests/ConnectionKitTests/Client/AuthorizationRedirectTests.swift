import ConnectionKit
import ConnectionKitTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Sends a bearer token through the `authorization` hook, with the method given at init.
private final class SignedIn: ConnectionRequest<Data>, @unchecked Sendable {
    // Safe: immutable after init.
    let target: URL
    let method: HTTPMethod

    init(_ target: URL, method: HTTPMethod) {
        self.target = target
        self.method = method
        super.init()
        callbackQueue = DispatchQueue(label: "AuthorizationRedirectTests")
    }

    override var url: URL? { target }
    override var httpMethod: HTTPMethod { method }
    override var bodyData: Data? { method == .post ? Data("body".utf8) : nil }
    override var authorization: Authorization? { .bearer("same-origin-token") }
}

/// What docs/client-and-authorization.md says about `Authorization` and redirects within one origin.
@Suite("Authorization across a same-origin redirect", .offThePool, .timeLimit(.minutes(1)))
struct AuthorizationRedirectTests {
    @Test(
        "a redirect to the same scheme, host and port keeps the Authorization of the authorization hook",
        arguments: [301, 302, 303, 307, 308])
    func sameOriginRedirectKeepsAuthorization(status: Int) async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        // An absolute Location that names the same origin, as an API's redirects usually do.
        let landing = server.url("/land")
        server.route("/start") { _ in .redirect(to: landing.absoluteString, status: status) }
        server.route("/land") { _ in .text("landed") }
        let data = try await SignedIn(server.url("/start"), method: .post).value()
        #expect(data == Data("landed".utf8))
        let first = try #require(server.receivedRequests("/start").first)
        let landed = try #require(server.receivedRequests("/land").first)
        #expect(first.header("Authorization") == "Bearer same-origin-token")
        #expect(landed.header("Authorization") == "Bearer same-origin-token")
    }
}
