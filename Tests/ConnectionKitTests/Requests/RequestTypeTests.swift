import ConnectionKit
import ConnectionKitTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

private struct CatalogEntry: Codable, Sendable, Equatable {
    let id: Int
    let name: String
}

private final class FetchCatalog: JSONConnectionRequest<[CatalogEntry]>, @unchecked Sendable {
    // Safe: only immutable stored properties.
    let target: URL
    init(_ target: URL) { self.target = target }
    override var url: URL? { target }
}

private final class CreateCatalogEntry: JSONConnectionRequest<CatalogEntry>, @unchecked Sendable {
    // Safe: only immutable stored properties.
    let target: URL
    let event: CatalogEntry
    init(_ target: URL, event: CatalogEntry) {
        self.target = target
        self.event = event
    }
    override var url: URL? { target }
    override var httpMethod: HTTPMethod { .post }
    override var bodyObject: (any Encodable & Sendable)? { event }
}

/// A ConnectionRequest<String> that forgot to override parseCompletionData.
private final class ForgotParser: ConnectionRequest<String>, @unchecked Sendable {
    // Safe: only immutable stored properties.
    let target: URL
    init(_ target: URL) { self.target = target }
    override var url: URL? { target }
}

@Suite("Basic and JSON requests", .offThePool, .timeLimit(.minutes(3)))
struct RequestTypeTests {
    @Test("BasicConnectionRequest sends a one-off URLRequest and delivers the body")
    func basic() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/hello") { _ in .text("hello, world") }
        let request = BasicConnectionRequest(request: URLRequest(url: server.url("/hello")))
        let endings = Endings(request)
        request.start()
        let data = try await endings.value()
        #expect(String(decoding: data, as: UTF8.self) == "hello, world")
        #expect(request.urlResponse?.statusCode == 200)
        #expect(request.state == .finished)
    }

    @Test("BasicConnectionRequest without a request fails clearly")
    func basicWithoutRequest() async throws {
        let request = BasicConnectionRequest()
        let error = try await Endings(request).connectionErrorAfterStart(request)
        guard let reason = error.reason else {
            Issue.record("expected invalidRequest, got \(error)")
            return
        }
        #expect(reason.contains("request"))
        #expect(error.requestTypeName == "BasicConnectionRequest")
    }

    @Test("JSONConnectionRequest decodes a typed array and sends Accept: application/json")
    func typed() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        let events = [CatalogEntry(id: 1, name: "Climbing"), CatalogEntry(id: 2, name: "Cinema")]
        server.route("/events.json") { _ in .json(events) }
        let decoded = try await FetchCatalog(server.url("/events.json")).value()
        #expect(decoded == events)
        #expect(server.receivedRequests("/events.json").first?.header("Accept") == "application/json")
    }

    @Test("JSONConnectionRequest<JSON> decodes untyped JSON with subscripts")
    func untyped() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/any") { _ in .jsonString(#"{"events":[{"name":"Climbing","id":1,"open":true}],"next":null}"#) }
        let json = try await FetchJSON(server.url("/any")).value()
        #expect(json["events"]?[0]?["name"]?.stringValue == "Climbing")
        #expect(json["events"]?[0]?["id"]?.intValue == 1)
        #expect(json["events"]?[0]?["open"]?.boolValue == true)
        #expect(json["next"] == .null)
        #expect(json["missing"] == nil)
        #expect(json["events"]?[5] == nil)
    }

    @Test("bodyObject is encoded as the JSON body with Content-Type: application/json")
    func bodyObject() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("POST", "/events") { request in
            TestResponse(
                status: 201, headers: [TestHeader("Content-Type", "application/json")], body: .data(request.body))
        }
        let created = try await CreateCatalogEntry(server.url("/events"), event: CatalogEntry(id: 9, name: "Gig"))
            .value()
        #expect(created == CatalogEntry(id: 9, name: "Gig"))
        let received = try #require(server.receivedRequests("/events").first)
        #expect(received.header("Content-Type") == "application/json")
        #expect(received.bodyString == #"{"id":9,"name":"Gig"}"#)
    }

    @Test("an empty JSON body is a parsing error, not a trap", arguments: [200, 204])
    func emptyBody(status: Int) async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/empty") { _ in .status(status) }
        let request = FetchCatalog(server.url("/empty"))
        let error = try await Endings(request).connectionErrorAfterStart(request)
        guard case .parsing = error.kind else {
            Issue.record("expected parsing, got \(error)")
            return
        }
        #expect(error.localizedDescription.contains("FetchCatalog"))
        #expect(error.localizedDescription.contains("empty"))
    }

    @Test("malformed JSON is a parsing error naming the class")
    func malformed() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/bad") { _ in .jsonString(#"[{"id": 1, "name": "#) }
        let request = FetchCatalog(server.url("/bad"))
        let error = try await Endings(request).connectionErrorAfterStart(request)
        guard case .parsing = error.kind else {
            Issue.record("expected parsing, got \(error)")
            return
        }
        #expect(error.localizedDescription.hasPrefix("FetchCatalog could not read the response"))
    }

    @Test("a type mismatch is a parsing error that says where")
    func typeMismatch() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/mismatch") { _ in .jsonString(#"[{"id": "one", "name": "x"}]"#) }
        let request = FetchCatalog(server.url("/mismatch"))
        let error = try await Endings(request).connectionErrorAfterStart(request)
        guard error.kind == .parsing, let underlying = error.underlyingError else {
            Issue.record("expected parsing, got \(error)")
            return
        }
        #expect(underlying is DecodingError)
        #expect(error.localizedDescription.contains("[0].id"))
    }

    @Test("an Output other than Data without parseCompletionData fails clearly")
    func missingParser() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/text") { _ in .text("text") }
        let request = ForgotParser(server.url("/text"))
        let error = try await Endings(request).connectionErrorAfterStart(request)
        guard case .parsing = error.kind else {
            Issue.record("expected parsing, got \(error)")
            return
        }
        #expect(error.localizedDescription.contains("parseCompletionData"))
    }
}
