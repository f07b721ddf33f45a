import ConnectionKit
import ConnectionKitTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Sends the authorization given at init.
private final class Authorized: ConnectionRequest<Data>, @unchecked Sendable {
    // Safe: immutable after init.
    let target: URL
    let credential: Authorization?
    let extraHeaders: [String: String]

    init(_ target: URL, _ credential: Authorization?, headers: [String: String] = [:]) {
        self.target = target
        self.credential = credential
        self.extraHeaders = headers
        super.init()
        callbackQueue = DispatchQueue(label: "AuthorizationTests")
    }

    override var url: URL? { target }
    override var authorization: Authorization? { credential }
    override var requestHeaderFields: [String: String] { extraHeaders }
}

@Suite("Authorization forms", .offThePool, .timeLimit(.minutes(3)))
struct AuthorizationTests {
    private func sent(_ credential: Authorization?, headers: [String: String] = [:]) async throws -> String? {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("GET", "/me") { _ in .text("ok") }
        _ = try await Authorized(server.url("/me"), credential, headers: headers).value()
        return try #require(server.receivedRequests("/me").first).header("Authorization")
    }

    private func decodedBasic(_ header: String?) -> String? {
        guard let header, header.hasPrefix("Basic ") else { return nil }
        return Data(base64Encoded: String(header.dropFirst(6))).flatMap { String(data: $0, encoding: .utf8) }
    }

    @Test func basicSendsUsernameAndPassword() async throws {
        let header = try await sent(.basic(username: "ada@example.com", password: "p:ss wörd"))
        #expect(decodedBasic(header) == "ada@example.com:p:ss wörd")
    }

    @Test func bearerSendsTheToken() async throws {
        #expect(try await sent(.bearer("abc.def.ghi")) == "Bearer abc.def.ghi")
    }

    @Test func tokenAsUsernameSendsBasicWithAnEmptyPassword() async throws {
        let header = try await sent(.tokenAsUsername("t0ken"))
        #expect(header == "Basic dDBrZW46")
        #expect(decodedBasic(header) == "t0ken:")
    }

    @Test func noAuthorizationSendsNoHeader() async throws {
        #expect(try await sent(nil) == nil)
    }

    @Test func anExplicitHeaderWins() async throws {
        #expect(try await sent(.bearer("hook"), headers: ["Authorization": "Custom x"]) == "Custom x")
    }

    @Test(arguments: [401, 403])
    func refusedCredentialsReadAsAGenericMessage(status: Int) async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("GET", "/me") { _ in .status(status, body: "wrong password for ada") }
        let request = Authorized(server.url("/me"), .basic(username: "ada", password: "secret"))
        let error = try await #require(throws: ConnectionError.self) { try await request.value() }
        #expect(error.isAuthenticationFailure)
        #expect(error.statusCode == status)
        let message = error.localizedDescription
        #expect(message.contains("could not be authenticated"))
        for leak in ["ada", "secret", "password", "username", "token"] {
            #expect(!message.lowercased().contains(leak), "the message names \(leak): \(message)")
        }
    }
}
