import ConnectionKit
import ConnectionKitTesting
import Foundation
import Testing

private final class SendsCookie: FetchData, @unchecked Sendable {
    override var requestHeaderFields: [String: String] { ["Cookie": "session=mine"] }
}

@Suite("Cookies are explicit", .offThePool, .timeLimit(.minutes(3)))
struct CookieTests {
    @Test("a Set-Cookie is not stored and sent to later requests; a Cookie header is sent as set")
    func noImplicitJar() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/login") { _ in
            TestResponse(
                headers: [TestHeader("Set-Cookie", "session=from-server; Path=/")], body: .data(Data("ok".utf8)))
        }
        server.route("/echo") { .echo($0) }
        _ = try await FetchData(server.url("/login")).value()
        _ = try await FetchData(server.url("/echo")).value()
        _ = try await SendsCookie(server.url("/echo")).value()
        let received = server.receivedRequests("/echo")
        #expect(received.count == 2)
        #expect(received.first?.header("Cookie") == nil)
        #expect(received.last?.header("Cookie") == "session=mine")
    }
}
