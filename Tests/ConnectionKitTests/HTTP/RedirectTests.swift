import ConnectionKit
import ConnectionKitTesting
import Foundation
import Testing

private final class Post: FetchData, @unchecked Sendable {
    override var httpMethod: HTTPMethod { .post }
    override var bodyData: Data? { Data("the body".utf8) }
    override var requestHeaderFields: [String: String] { ["Content-Type": "text/plain"] }
}

private final class DoesNotFollow: FetchData, @unchecked Sendable {
    override var followsRedirects: Bool { false }
}

@Suite("Redirects are followed by ConnectionKit, the same on every platform", .offThePool, .timeLimit(.minutes(3)))
struct RedirectTests {
    @Test("a 302 is followed and the final response is delivered")
    func follows302() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/old") { _ in .redirect(to: "/new") }
        server.route("/new") { _ in .text("new place") }
        let request = FetchData(server.url("/old"))
        let data = try await request.value()
        #expect(String(decoding: data, as: UTF8.self) == "new place")
        #expect(request.urlResponse?.url?.path == "/new")
        #expect(server.hits("/old") == 1)
        #expect(server.hits("/new") == 1)
    }

    @Test("307 and 308 keep the method and the body (URLSession on Linux drops the body)", arguments: [307, 308])
    func keepsBody(status: Int) async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/submit") { _ in .redirect(to: "/submit-here", status: status) }
        server.route("/submit-here") { .echo($0) }
        _ = try await Post(server.url("/submit")).value()
        let received = try #require(server.receivedRequests("/submit-here").first)
        #expect(received.method == "POST")
        #expect(received.bodyString == "the body")
    }

    @Test("303 (and 302 after POST) continue as GET without a body", arguments: [302, 303])
    func becomesGet(status: Int) async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/submit") { _ in .redirect(to: "/result", status: status) }
        server.route("/result") { .echo($0) }
        _ = try await Post(server.url("/submit")).value()
        let received = try #require(server.receivedRequests("/result").first)
        #expect(received.method == "GET")
        #expect(received.body.isEmpty)
        #expect(received.header("Content-Type") == nil)
    }

    @Test("followsRedirects = false delivers the 3xx to validate")
    func notFollowed() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/old") { _ in .redirect(to: "/new") }
        let request = DoesNotFollow(server.url("/old"))
        let error = try await Endings(request).connectionErrorAfterStart(request)
        #expect(error.statusCode == 302)
        #expect(server.hits("/new") == 0)
    }

    @Test("a redirect loop fails with tooManyRedirects after the limit")
    func loop() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/a") { _ in .redirect(to: "/b") }
        server.route("/b") { _ in .redirect(to: "/a") }
        let request = FetchData(server.url("/a"))
        let error = try await Endings(request).connectionErrorAfterStart(request)
        guard error.kind == .tooManyRedirects, let limit = error.limit else {
            Issue.record("expected tooManyRedirects, got \(error)")
            return
        }
        #expect(limit == 10)
        #expect(server.hits("/a") + server.hits("/b") == 11)
    }
}
