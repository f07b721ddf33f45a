import ConnectionKit
import ConnectionKitTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

private struct NewEvent: Codable, Sendable, Equatable {
    let name: String
    let seats: Int
    let tags: [String]
}

/// Sends the method and body given at init.
private final class Send: ConnectionRequest<Data>, @unchecked Sendable {
    // Safe: immutable after init.
    let target: URL
    let method: HTTPMethod
    let body: RequestBody?
    let headers: [String: String]

    init(_ target: URL, _ method: HTTPMethod, _ body: RequestBody?, headers: [String: String] = [:]) {
        self.target = target
        self.method = method
        self.body = body
        self.headers = headers
        super.init()
        callbackQueue = DispatchQueue(label: "RequestBodyTests")
    }

    override var url: URL? { target }
    override var httpMethod: HTTPMethod { method }
    override var requestBody: RequestBody? { body }
    override var requestHeaderFields: [String: String] { headers }
}

/// An app superclass with default headers, as the seed app's shared client had.
private class SeedAPI: ConnectionRequest<Data>, @unchecked Sendable {
    // Safe: immutable after init.
    let target: URL
    init(_ target: URL) {
        self.target = target
        super.init()
        callbackQueue = DispatchQueue(label: "RequestBodyTests.seed")
    }
    override var url: URL? { target }
    override var defaultHeaderFields: [String: String] {
        DefaultHeaders.standard(appName: "Seed", appVersion: "2.1")
    }
}

private final class FetchPlain: SeedAPI, @unchecked Sendable {
    // Safe: no stored state of its own.
}

private final class FetchCSV: SeedAPI, @unchecked Sendable {
    // Safe: no stored state of its own.
    override var requestHeaderFields: [String: String] { ["accept": "text/csv"] }
}

@Suite("Request body encodings", .offThePool, .timeLimit(.minutes(3)))
struct RequestBodyTests {
    private func received(
        _ method: HTTPMethod, _ body: RequestBody?, headers: [String: String] = [:]
    ) async throws -> TestRequest {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/echo") { _ in .text("ok") }
        _ = try await Send(server.url("/echo?fixed=1"), method, body, headers: headers).value()
        return try #require(server.receivedRequests("/echo").first)
    }

    @Test(arguments: [HTTPMethod.get, .head, .delete])
    func queryGoesIntoTheURL(method: HTTPMethod) async throws {
        let request = try await received(
            method, .query([URLQueryItem(name: "q", value: "a b+c&d=e"), URLQueryItem(name: "page", value: "2")]))
        #expect(request.method == method.rawValue)
        #expect(request.query == "fixed=1&q=a%20b%2Bc%26d%3De&page=2")
        #expect(request.queryItems == ["fixed": "1", "q": "a b+c&d=e", "page": "2"])
        #expect(request.body.isEmpty)
        #expect(request.header("Content-Type") == nil)
    }

    @Test func formIsURLEncoded() async throws {
        let request = try await received(
            .post, .form([URLQueryItem(name: "name", value: "Zoë & co"), URLQueryItem(name: "sum", value: "1+1=2")]))
        #expect(request.header("Content-Type") == "application/x-www-form-urlencoded; charset=utf-8")
        #expect(request.bodyString == "name=Zo%C3%AB%20%26%20co&sum=1%2B1%3D2")
    }

    @Test func jsonIsEncodedFromEncodable() async throws {
        let event = NewEvent(name: "Launch", seats: 40, tags: ["a", "ü"])
        let request = try await received(.put, .json(event))
        #expect(request.header("Content-Type") == "application/json")
        #expect(try JSONDecoder().decode(NewEvent.self, from: request.body) == event)
        #expect(request.bodyString == #"{"name":"Launch","seats":40,"tags":["a","ü"]}"#)
    }

    @Test func rawDataKeepsItsContentType() async throws {
        let request = try await received(.patch, .data(Data("<a/>".utf8), contentType: "application/xml"))
        #expect(request.header("Content-Type") == "application/xml")
        #expect(request.bodyString == "<a/>")
    }

    @Test func anExplicitContentTypeWins() async throws {
        let request = try await received(
            .post, .json(["a": 1]), headers: ["Content-Type": "application/vnd.api+json"])
        #expect(request.header("Content-Type") == "application/vnd.api+json")
    }

    @Test func multipartSendsFieldsAndFiles() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("RequestBodyTests-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("notes.txt")
        try Data("line 1\nline 2\n".utf8).write(to: file)
        var form = MultipartForm(boundary: "b0undary")
        form.addField(name: "title", value: "Hello \"world\"")
        form.addFile(name: "notes", fileURL: file, contentType: "text/plain")
        form.addData(name: "raw", data: Data([0, 1, 2]), filename: "raw.bin")
        let request = try await received(.post, .multipart(form))
        #expect(request.header("Content-Type") == "multipart/form-data; boundary=b0undary")
        let expected =
            "--b0undary\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\nHello \"world\"\r\n"
            + "--b0undary\r\nContent-Disposition: form-data; name=\"notes\"; filename=\"notes.txt\"\r\n"
            + "Content-Type: text/plain\r\n\r\nline 1\nline 2\n\r\n"
            + "--b0undary\r\nContent-Disposition: form-data; name=\"raw\"; filename=\"raw.bin\"\r\n"
            + "Content-Type: application/octet-stream\r\n\r\n\u{0}\u{1}\u{2}\r\n--b0undary--\r\n"
        #expect(request.bodyString == expected)
        #expect(request.header("Content-Length") == String(expected.utf8.count))
    }

    @Test func aBodyOnAGetFailsClearly() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        let error = try await #require(throws: ConnectionError.self) {
            try await Send(server.url("/echo"), .get, .form([URLQueryItem(name: "a", value: "1")])).value()
        }
        guard let reason = error.reason else {
            Issue.record("expected invalidRequest, got \(error)")
            return
        }
        #expect(reason.contains("GET"))
        #expect(server.hits("/echo") == 0)
    }

    @Test func aMissingMultipartFileFailsClearly() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        var form = MultipartForm()
        form.addFile(name: "f", fileURL: URL(fileURLWithPath: "/nonexistent/\(UUID()).bin"))
        let error = try await #require(throws: ConnectionError.self) {
            try await Send(server.url("/echo"), .post, .multipart(form)).value()
        }
        guard case .fileSystem = error.kind else {
            Issue.record("expected fileSystem, got \(error)")
            return
        }
        #expect(server.hits("/echo") == 0)
    }

    @Test func defaultHeadersNameTheAppAndConnectionKit() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/plain") { _ in .text("ok") }
        server.route("/csv") { _ in .text("ok") }
        _ = try await FetchPlain(server.url("/plain")).value()
        _ = try await FetchCSV(server.url("/csv")).value()
        let plain = try #require(server.receivedRequests("/plain").first)
        #expect(plain.header("User-Agent") == "Seed/2.1 ConnectionKit/\(DefaultHeaders.connectionKitVersion)")
        #expect(plain.header("Accept") == "application/json")
        #expect(plain.header("Accept-Language")?.isEmpty == false)
        // The endpoint's own header replaces the default of the same name (whatever its case).
        let csv = try #require(server.receivedRequests("/csv").first)
        #expect(csv.header("Accept") == "text/csv")
        #expect(csv.headers.filter { $0.name.lowercased() == "accept" }.count == 1)
        #expect(csv.header("User-Agent") == plain.header("User-Agent"))
    }

    @Test func acceptLanguageIsWeighted() {
        #expect(DefaultHeaders.acceptLanguage(["en-GB", "en", "fr"]) == "en-GB, en;q=0.9, fr;q=0.8")
        #expect(DefaultHeaders.acceptLanguage([]) == "en")
    }
}
