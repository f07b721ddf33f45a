import ConnectionKit
import ConnectionKitTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What a hostile server can send back: a `Content-Length` past `Int64`, credentials in a redirect's
/// `Location`. Run on both transports (`CONNECTIONKIT_TEST_TRANSPORT=libcurl`).
@Suite(.offThePool, .timeLimit(.minutes(2))) struct HostileResponseTests {
    @Test(
        "a Content-Length past Int64 with a body cut short is a failure, never a success",
        arguments: ["9223372036854775808", "18446744073709551616", "99999999999999999999999", "0009223372036854775808"])
    func anOverflowingContentLengthFails(length: String) async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        let head = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: \(length)\r\nConnection: close"
        server.route("/r") { _ in TestResponse(fault: .raw(Data((head + "\r\n\r\nhello").utf8))) }
        let ending = await run(RetryingRequest(URLRequest(url: server.url("/r"))))
        #expect(ending?.data == nil, "a body cut short is not delivered: \(String(describing: ending))")
        #expect(ending?.error != nil, "\(String(describing: ending))")
    }

    /// 2^63 - 1024: 19 digits like `Int64.max`, and a `Double` exactly (FoundationNetworking reads libcurl's
    /// length as a `Double` and traps converting one that rounds to 2^63, before ConnectionKit sees it).
    @Test("a Content-Length of 19 digits that fits Int64 is not refused as framing")
    func aLargeLengthThatFitsIsNotAFramingError() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        let head = "HTTP/1.1 200 OK\r\nContent-Length: 9223372036854774784\r\nConnection: close"
        server.route("/r") { _ in TestResponse(fault: .raw(Data((head + "\r\n\r\nhello").utf8))) }
        let ending = await run(RetryingRequest(URLRequest(url: server.url("/r"))))
        // The body is cut short, so the transport fails it, but not as a framing refusal.
        #expect(ending?.data == nil)
        #expect(ending?.error?.description.contains("larger than any body") != true, "\(String(describing: ending))")
    }

    @Test(
        "userinfo in a redirect's Location never becomes credentials",
        arguments: ["http://evil:pw@127.0.0.1:PORT/landing", "//evil:pw@127.0.0.1:PORT/landing"])
    func userinfoInALocationIsNotSent(location: String) async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        let target = location.replacingOccurrences(of: "PORT", with: "\(server.port)")
        server.route("/start") { _ in .redirect(to: target) }
        server.route("/landing") { .echo($0) }
        let ending = await run(RetryingRequest(URLRequest(url: server.url("/start"))))
        #expect(ending?.data != nil, "the redirect is followed: \(String(describing: ending))")
        let landed = try #require(server.receivedRequests("/landing").first)
        #expect(landed.header("Authorization") == nil, "sent: \(landed.header("Authorization") ?? "")")
        #expect(server.receivedRequests("/landing").count == 1)
    }

    @Test("the app's own URL credentials still reach a same-origin relative redirect")
    func appCredentialsSurviveARelativeRedirect() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/start") { _ in .redirect(to: "/landing") }
        server.route("/landing") { .echo($0) }
        server.route("/direct") { .echo($0) }
        let own = try #require(URL(string: "http://app:secret@127.0.0.1:\(server.port)/direct"))
        _ = await run(RetryingRequest(URLRequest(url: own)))
        // Whatever the transport makes of URL credentials on a first hop, a relative redirect does the same.
        let direct = server.receivedRequests("/direct").first?.header("Authorization")
        let start = try #require(URL(string: "http://app:secret@127.0.0.1:\(server.port)/start"))
        _ = await run(RetryingRequest(URLRequest(url: start)))
        #expect(server.receivedRequests("/landing").first?.header("Authorization") == direct)
    }
}
