import ConnectionKit
import ConnectionKitTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The app's own error, produced by a parseError override.
private struct APIError: Error, Equatable {
    let code: String
    let message: String
}

/// A superclass that maps the API's error body to APIError.
private class APIRequest: JSONConnectionRequest<JSON>, @unchecked Sendable {
    // Safe: only immutable stored properties.
    let target: URL
    init(_ target: URL) { self.target = target }
    override var url: URL? { target }

    override func parseError(_ error: ConnectionError) -> any Error {
        guard let body = error.responseBody,
            let json = try? JSONDecoder().decode(JSON.self, from: body),
            let code = json["error"]?["code"]?.stringValue
        else { return error }
        return APIError(code: code, message: json["error"]?["message"]?.stringValue ?? "")
    }
}

/// An API that reports errors inside 200 responses: handleResultObject routes them to failure.
private final class ErrorsInside200: APIRequest, @unchecked Sendable {
    override func handleResultObject(_ object: JSON) {
        if let code = object["error"]?["code"]?.stringValue {
            handleConnectionError(APIError(code: code, message: "in a 200"))
        } else {
            super.handleResultObject(object)
        }
    }
}

/// Accepts every status.
private final class AcceptsAnything: FetchData, @unchecked Sendable {
    override func validate(_ response: ConnectionResponse, data: Data?) throws {}
}

private final class NoURL: ConnectionRequest<Data>, @unchecked Sendable {}

private final class GetWithBody: FetchData, @unchecked Sendable {
    override var bodyData: Data? { Data("not allowed".utf8) }
}

private final class CustomErrorCode: FetchData, @unchecked Sendable {
    // Safe: only immutable stored properties.
    let timeout: TimeInterval
    let bodyLimit: Int64
    let parsingFails: Bool
    let validationFails: Bool

    init(
        _ target: URL?, timeout: TimeInterval = 10, bodyLimit: Int64 = 1_000_000, parsingFails: Bool = false,
        validationFails: Bool = false
    ) {
        self.timeout = timeout
        self.bodyLimit = bodyLimit
        self.parsingFails = parsingFails
        self.validationFails = validationFails
        super.init(target)
    }

    override var errorCode: Int { 4242 }
    override var timeoutInterval: TimeInterval { timeout }
    override var maximumResponseBodySize: Int64 { bodyLimit }
    override func parseCompletionData(_ data: Data, response: ConnectionResponse) throws -> Data {
        if parsingFails { throw CocoaError(.propertyListReadCorrupt) }
        return data
    }
    override func validate(_ response: ConnectionResponse, data: Data?) throws {
        // A foreign error: ConnectionKit wraps it as `.other`.
        if validationFails { throw CocoaError(.featureUnsupported) }
        try super.validate(response, data: data)
    }
}

/// One way for a request to fail, for the errorCode test: every kind of `ConnectionError`.
enum FailureScenario: String, CaseIterable, Sendable {
    case invalidRequest, unacceptableStatusCode, transport, timedOut, cancelled, responseTooLarge, parsing
    case fileSystem, tooManyRedirects, other
}

@Suite("Errors are typed and name the request class", .offThePool, .timeLimit(.minutes(3)))
struct ErrorTests {
    @Test("404 and 500 fail with unacceptableStatusCode carrying the body", arguments: [404, 500])
    func statusCodes(status: Int) async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/fail") { _ in .status(status, body: "body of \(status)") }
        let request = FetchData(server.url("/fail"))
        let error = try await Endings(request).connectionErrorAfterStart(request)
        guard error.kind == .unacceptableStatusCode, let code = error.statusCode else {
            Issue.record("expected unacceptableStatusCode, got \(error)")
            return
        }
        #expect(code == status)
        #expect(error.responseBody.map { String(decoding: $0, as: UTF8.self) } == "body of \(status)")
        #expect(error.localizedDescription.contains("FetchData"))
        #expect(error.localizedDescription.contains("\(status)"))
        #expect(request.state == .failed)
    }

    @Test("401 and 403 read as a generic authentication message", arguments: [401, 403])
    func authentication(status: Int) async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/private") { _ in .status(status, body: "wrong password for user bob") }
        let request = FetchData(server.url("/private"))
        let error = try await Endings(request).connectionErrorAfterStart(request)
        #expect(error.isAuthenticationFailure)
        #expect(error.localizedDescription.contains("could not be authenticated"))
        #expect(!error.localizedDescription.contains("password"))
        #expect(!error.localizedDescription.contains("bob"))
    }

    @Test("a 401 with WWW-Authenticate: Basic ends (URLSession on Linux would hang forever)")
    func basicChallengeDoesNotHang() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/basic") { _ in
            TestResponse(status: 401, headers: [TestHeader("WWW-Authenticate", #"Basic realm="test""#)])
        }
        let request = FetchData(server.url("/basic"))
        let error = try await Endings(request).connectionErrorAfterStart(request)
        #expect(error.statusCode == 401)
        #expect(request.urlResponse?.statusCode == 401)
    }

    @Test("a validate override can accept any status")
    func validateOverride() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/teapot") { _ in .status(418, body: "short and stout") }
        let data = try await AcceptsAnything(server.url("/teapot")).value()
        #expect(String(decoding: data, as: UTF8.self) == "short and stout")
    }

    @Test("a parseError override maps the API's error body to the app's error type")
    func parseErrorOverride() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/items") { _ in .jsonString(#"{"error":{"code":"quota","message":"Too many"}}"#, status: 429) }
        let request = APIRequest(server.url("/items"))
        let endings = Endings(request)
        request.start()
        guard case .failure(let error) = try await endings.first() else {
            Issue.record("expected a failure")
            return
        }
        #expect(error as? APIError == APIError(code: "quota", message: "Too many"))
        await #expect(throws: APIError(code: "quota", message: "Too many")) {
            try await APIRequest(server.url("/items")).value()
        }
    }

    @Test("a handleResultObject override routes a 200 to the failure handler")
    func handleResultObjectRoutesToFailure() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/ok-but-not") { _ in .jsonString(#"{"error":{"code":"gone"}}"#) }
        let request = ErrorsInside200(server.url("/ok-but-not"))
        let endings = Endings(request)
        request.start()
        guard case .failure(let error) = try await endings.first() else {
            Issue.record("expected the failure handler")
            return
        }
        #expect((error as? APIError)?.code == "gone")
        await endings.queue.drain()
        #expect(endings.count == 1)
        await #expect(throws: APIError.self) { try await ErrorsInside200(server.url("/ok-but-not")).value() }
    }

    @Test("a missing url is invalidRequest naming the class")
    func missingURL() async throws {
        let request = NoURL()
        let error = try await Endings(request).connectionErrorAfterStart(request)
        guard let reason = error.reason else {
            Issue.record("expected invalidRequest, got \(error)")
            return
        }
        #expect(reason.contains("NoURL"))
        #expect(error.requestTypeName == "NoURL")
        #expect(error.localizedDescription.contains("NoURL"))
    }

    @Test(
        "an unsupported scheme is invalidRequest",
        arguments: ["ftp://example.com/x", "file:///etc/passwd", "mailto:a@b.c"])
    func unsupportedScheme(url: String) async throws {
        let request = FetchData(URL(string: url))
        let error = try await Endings(request).connectionErrorAfterStart(request)
        guard let reason = error.reason else {
            Issue.record("expected invalidRequest, got \(error)")
            return
        }
        #expect(reason.contains("not supported"))
    }

    @Test("a GET with a body is invalidRequest saying why")
    func getWithBody() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        let request = GetWithBody(server.url("/x"))
        let error = try await Endings(request).connectionErrorAfterStart(request)
        guard let reason = error.reason else {
            Issue.record("expected invalidRequest, got \(error)")
            return
        }
        #expect(reason.contains("GET request cannot carry a body"))
        #expect(server.hits("/x") == 0)
    }

    @Test("connection refused is a transport error")
    func connectionRefused() async throws {
        // A port bound and never listened on refuses connections, and no parallel test's server can take it
        // (a stopped server's port could be, and then answered 404).
        let refusing = try LoopbackPort(reusable: false)
        defer { refusing.release() }
        let url = try #require(URL(string: "http://127.0.0.1:\(refusing.port)/gone"))
        let request = FetchData(url)
        let error = try await Endings(request).connectionErrorAfterStart(request)
        guard let urlError = error.urlError else {
            Issue.record("expected transport, got \(error)")
            return
        }
        #expect(urlError.code == .cannotConnectToHost)
        #expect(error.localizedDescription.contains("FetchData could not reach the server"))
    }

    @Test("a body shorter than its Content-Length is a transport error")
    func truncatedBody() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/short") { _ in
            TestResponse(body: .data(Data(repeating: 1, count: 100)), fault: .shortBody(declaredLength: 1000))
        }
        let request = FetchData(server.url("/short"))
        let error = try await Endings(request).connectionErrorAfterStart(request)
        guard case .transport = error.kind else {
            Issue.record("expected transport, got \(error)")
            return
        }
    }

    @Test("a connection closed in the middle of the body is a transport error")
    func closedMidBody() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/cut") { _ in
            TestResponse(body: .data(Data(repeating: 2, count: 100_000)), fault: .closeAfterBodyBytes(30_000))
        }
        let request = FetchData(server.url("/cut"))
        let error = try await Endings(request).connectionErrorAfterStart(request)
        guard case .transport = error.kind else {
            Issue.record("expected transport, got \(error)")
            return
        }
    }

    @Test("a connection closed before the headers is a transport error")
    func closedBeforeHeaders() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/nothing") { _ in TestResponse(fault: .closeBeforeHeaders) }
        let request = FetchData(server.url("/nothing"))
        let error = try await Endings(request).connectionErrorAfterStart(request)
        guard case .transport = error.kind else {
            Issue.record("expected transport, got \(error)")
            return
        }
    }

    @Test("errorCode is carried on every error", arguments: FailureScenario.allCases)
    func errorCode(scenario: FailureScenario) async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/fail") { _ in .status(500) }
        server.route("/close") { _ in TestResponse(fault: .closeBeforeHeaders) }
        server.route("/never") { _ in TestResponse(fault: .neverRespond) }
        server.route("/big") { _ in .text(String(repeating: "x", count: 5_000)) }
        server.route("/ok") { _ in .text("ok") }
        server.route("/loop") { _ in .redirect(to: "/loop") }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ErrorTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let request: CustomErrorCode
        switch scenario {
        case .invalidRequest: request = CustomErrorCode(URL(string: "gopher://example.com"))
        case .unacceptableStatusCode: request = CustomErrorCode(server.url("/fail"))
        case .transport: request = CustomErrorCode(server.url("/close"))
        case .timedOut, .cancelled: request = CustomErrorCode(server.url("/never"), timeout: 0.3)
        case .responseTooLarge: request = CustomErrorCode(server.url("/big"), bodyLimit: 1_000)
        case .parsing: request = CustomErrorCode(server.url("/ok"), parsingFails: true)
        case .fileSystem:
            request = CustomErrorCode(server.url("/ok"))
            request.fileDestination = folder
        case .tooManyRedirects: request = CustomErrorCode(server.url("/loop"))
        case .other: request = CustomErrorCode(server.url("/ok"), validationFails: true)
        }
        let endings = Endings(request)
        request.start()
        if scenario == .cancelled { request.cancel() }
        let error = try await endings.connectionError()
        #expect("\(error.kind)".components(separatedBy: "(")[0] == scenario.rawValue, "\(error)")
        #expect(error.errorCode == 4242)
    }
}
