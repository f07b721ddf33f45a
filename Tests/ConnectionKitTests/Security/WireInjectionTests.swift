import ConnectionKit
import ConnectionKitTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Request smuggling and header injection: a method, header name or header value holding bytes that
/// would end a line on the wire fails the request with `invalidRequest`, naming the hook and the header,
/// before a connection is opened; it is never sent, and never silently dropped.
@Suite(.offThePool, .timeLimit(.minutes(2))) struct WireInjectionTests {
    /// Runs `hooks` (pointed at a fresh server's `/target`) and returns the `invalidRequest` reason,
    /// checking that the server never saw a connection.
    private func refusedBeforeSending(
        _ hooks: HostileHooks, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> String {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/target") { .echo($0) }
        server.route("/smuggled") { .echo($0) }
        var hooks = hooks
        hooks.url = server.url("/target")
        let error = try await failure(of: HostileRequest(hooks), sourceLocation: sourceLocation)
        let reason = invalidRequestReason(error, sourceLocation: sourceLocation)
        #expect(server.hits("/target") == 0, "nothing sent", sourceLocation: sourceLocation)
        #expect(server.hits("/smuggled") == 0, "no smuggled request", sourceLocation: sourceLocation)
        #expect(server.acceptedConnectionCount == 0, "no connection opened", sourceLocation: sourceLocation)
        return reason
    }

    // MARK: - Methods

    @Test(arguments: [
        "GET /smuggled HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\nGET", "GET\r\nX-Injected: 1", "GET\nX-Injected: 1",
        "GET\rX", "GET\0",
    ])
    func aMethodWithALineBreakIsRefused(method: String) async throws {
        let reason = try await refusedBeforeSending(HostileHooks(method: HTTPMethod(method)))
        #expect(reason.contains("httpMethod"), "\(reason)")
    }

    @Test(arguments: ["G E T", "GET ", "", "GET(1)", "GÉT", "GET\t"])
    func aMethodThatIsNotATokenIsRefused(method: String) async throws {
        let reason = try await refusedBeforeSending(HostileHooks(method: HTTPMethod(method)))
        #expect(reason.contains("httpMethod"), "\(reason)")
    }

    @Test func anExtensionMethodThatIsATokenIsSent() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/target") { .echo($0) }
        let request = HostileRequest(HostileHooks(url: server.url("/target"), method: "PROP-FIND_2.0!#$%&'*+^`|~"))
        let endings = Endings(request)
        request.start()
        _ = try await endings.value()
        #expect(server.receivedRequests("/target").first?.method == "PROP-FIND_2.0!#$%&'*+^`|~")
    }

    // MARK: - Header names

    @Test(arguments: ["X-Name\r\nX-Injected", "X-Name\nX-Injected", "X Name", "X-Name:", "", "X-Näme", "X-Name\0"])
    func aHeaderNameThatIsNotATokenIsRefused(name: String) async throws {
        let reason = try await refusedBeforeSending(HostileHooks(headers: [name: "value"]))
        #expect(reason.contains("requestHeaderFields"), "\(reason)")
    }

    @Test func aDefaultHeaderNameWithALineBreakNamesItsHook() async throws {
        let reason = try await refusedBeforeSending(HostileHooks(defaultHeaders: ["X-App\r\nX-Injected": "1"]))
        #expect(reason.contains("defaultHeaderFields"), "\(reason)")
    }

    // MARK: - Header values

    @Test(arguments: ["a\r\nX-Injected: 1", "a\nX-Injected: 1", "a\rX-Injected: 1", "a\0b"])
    func aHeaderValueWithCRLFOrNULIsAnErrorNotADrop(value: String) async throws {
        let reason = try await refusedBeforeSending(HostileHooks(headers: ["X-Note": value]))
        #expect(reason.contains("requestHeaderFields"), "\(reason)")
        #expect(reason.contains("X-Note"), "\(reason)")
        #expect(!reason.contains("X-Injected"), "the value is not echoed: \(reason)")
    }

    @Test func aDefaultHeaderValueWithALineBreakNamesItsHookAndHeader() async throws {
        let reason = try await refusedBeforeSending(
            HostileHooks(defaultHeaders: ["User-Agent": "App\r\nX-Injected: 1"]))
        #expect(reason.contains("defaultHeaderFields"), "\(reason)")
        #expect(reason.contains("User-Agent"), "\(reason)")
    }

    @Test(arguments: ["tok\r\nX-Injected: 1", "tok\nX-Injected: 1", "tok\0en"])
    func aBearerTokenWithCRLFOrNULIsAnErrorNotADrop(token: String) async throws {
        let reason = try await refusedBeforeSending(HostileHooks(authorization: .bearer(token)))
        #expect(reason.contains("authorization"), "\(reason)")
        #expect(reason.contains("Authorization"), "\(reason)")
        #expect(!reason.contains("tok"), "the credential is not echoed: \(reason)")
    }

    @Test(arguments: ["text/plain\r\nX-Injected: 1", "text/plain\n", "text/plain\0"])
    func aBodyContentTypeWithCRLFOrNULIsAnErrorNotADrop(contentType: String) async throws {
        let hooks = HostileHooks(method: .post, body: .data(Data("x".utf8), contentType: contentType))
        let reason = try await refusedBeforeSending(hooks)
        #expect(reason.contains("requestBody"), "\(reason)")
        #expect(reason.contains("Content-Type"), "\(reason)")
    }

    @Test func anErrorNamesNoSecretValue() async throws {
        let hooks = HostileHooks(headers: ["X-Api-Key": "sk-live-123\r\n"], secretHeaders: ["X-Api-Key"])
        let server = try TestServer.started()
        defer { server.stop() }
        var pointed = hooks
        pointed.url = server.url("/target")
        let error = try await failure(of: HostileRequest(pointed))
        #expect(invalidRequestReason(error).contains("X-Api-Key"))
        for text in everyRendering(of: error) {
            #expect(!text.contains("sk-live-123"), "\(text)")
        }
    }

    @Test func tabsAndNonASCIIInAValueAreSentAsIs() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/target") { .echo($0) }
        let request = HostileRequest(HostileHooks(url: server.url("/target"), headers: ["X-Note": "a\tb"]))
        let endings = Endings(request)
        request.start()
        _ = try await endings.value()
        #expect(server.receivedRequests("/target").first?.header("X-Note") == "a\tb")
    }
}
