import ConnectionKit
import ConnectionKitTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Collects what `SeedEnvironment.report` receives.
private final class Reports: @unchecked Sendable {
    // Safe: `entries` is only touched under `lock`.
    private let lock = NSLock()
    private var entries: [(request: String, error: any Error)] = []

    func record(_ request: String, _ error: any Error) {
        lock.lock()
        defer { lock.unlock() }
        entries.append((request, error))
    }

    var all: [(request: String, error: any Error)] {
        lock.lock()
        defer { lock.unlock() }
        return entries
    }
}

/// The app superclass of docs/client-and-authorization.md (SeedClient.swift), against a real server.
@Suite("Superclass failure path and the seed client", .timeLimit(.minutes(3)))
struct FailureHandlingTests {
    private let queue = DispatchQueue(label: "FailureHandlingTests")

    private func environment(_ server: TestServer, _ reports: Reports, token: String = "t0ken") -> SeedEnvironment {
        SeedEnvironment(
            baseURL: server.url("/v2/"),
            credentials: InMemoryCredentialStore(["token": token, "refresh": "r3fresh"]),
            report: { reports.record($0, $1) })
    }

    @Test func endpointsInheritBaseURLHeadersAndTokenAsUsername() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("GET", "/v2/events.json") { _ in .jsonString(#"[{"id":1,"name":"Launch"}]"#) }
        let reports = Reports()
        let request = FetchEvents(environment: environment(server, reports), page: 2)
        request.callbackQueue = queue
        #expect(try await request.value() == [Event(id: 1, name: "Launch")])
        let received = try #require(server.receivedRequests("/v2/events.json").first)
        #expect(received.queryItems == ["page": "2"])
        #expect(received.header("Authorization") == Authorization.tokenAsUsername("t0ken").headerValue)
        #expect(received.header("User-Agent")?.hasPrefix("Seed/2.1 ConnectionKit/") == true)
        #expect(received.header("Accept") == "application/json")
        #expect(reports.all.isEmpty)
    }

    @Test func anAPIErrorBodyBecomesTheAppsErrorAndIsReportedOnce() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("POST", "/v2/events.json") { _ in
            TestResponse(
                status: 422, headers: [TestHeader("Content-Type", "application/json")],
                body: .data(Data(#"{"error":{"code":"name_taken","message":"That name is taken."}}"#.utf8)))
        }
        let reports = Reports()
        let request = CreateEvent(environment: environment(server, reports), draft: EventDraft(name: "Launch"))
        request.callbackQueue = queue
        let handled = Reports()
        request.failureHandler = { error in
            if error as? SeedError == .rejected(code: "name_taken", message: "That name is taken.") {
                handled.record("failureHandler", error)
            }
        }
        let error = try await #require(throws: SeedError.self) { try await request.value() }
        #expect(error == .rejected(code: "name_taken", message: "That name is taken."))
        // "Once" is counted after a settle window (a second report would come moments after the first),
        // then after the callback queue ran everything queued before the count.
        try await Task.sleep(for: .milliseconds(300))
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in queue.async { done.resume() } }
        #expect(handled.all.count == 1)
        #expect(reports.all.count == 1)
        #expect(reports.all.first?.request == "CreateEvent")
        #expect(reports.all.first?.error as? SeedError == error)
        #expect(server.receivedRequests("/v2/events.json").first?.bodyString == #"{"name":"Launch"}"#)
    }

    @Test func everyKindOfFailureGoesThroughTheSamePlace() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("GET", "/v2/events.json") { _ in .status(500, body: "<html>oops</html>") }
        server.route("POST", "/v2/events.json") { _ in .status(403, body: "no") }
        let reports = Reports()
        let environment = environment(server, reports)
        let fetch = FetchEvents(environment: environment)
        fetch.callbackQueue = queue
        let create = CreateEvent(environment: environment, draft: EventDraft(name: "x"))
        create.callbackQueue = queue
        let fetchError = try await #require(throws: SeedError.self) { try await fetch.value() }
        let createError = try await #require(throws: SeedError.self) { try await create.value() }
        guard case .unavailable(let message) = fetchError else {
            Issue.record("expected unavailable, got \(fetchError)")
            return
        }
        #expect(message.contains("500"))
        #expect(createError == .signInRequired)
        #expect(reports.all.map(\.request).sorted() == ["CreateEvent", "FetchEvents"])
    }

    @Test func anExpiredTokenIsRenewedOnceAndTheCallSucceeds() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        let fresh = Authorization.tokenAsUsername("n3w").headerValue
        server.route("GET", "/v2/events.json") { request in
            request.header("Authorization") == fresh ? .jsonString("[]") : .status(401, body: "expired")
        }
        server.route("POST", "/v2/auth/renew") { request in
            request.bodyString == "refresh_token=r3fresh" ? .jsonString(#"{"token":"n3w"}"#) : .status(400, body: "")
        }
        let reports = Reports()
        let environment = environment(server, reports, token: "old")
        let events = try await withThrowingTaskGroup(of: [Event].self) { group in
            for _ in 0..<10 {
                let request = FetchEvents(environment: environment)
                request.callbackQueue = queue
                group.addTask { try await request.value() }
            }
            return try await group.reduce(into: 0) { count, _ in count += 1 }
        }
        #expect(events == 10)
        #expect(server.hits("/v2/auth/renew") == 1)
        #expect(environment.refresher.refreshCount == 1)
        #expect(try environment.credentials.credential(for: "token") == "n3w")
        #expect(reports.all.isEmpty)
    }

    @Test func aFailedRenewalAsksTheUserToSignInAgain() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("GET", "/v2/events.json") { _ in .status(401, body: "expired") }
        server.route("POST", "/v2/auth/renew") { _ in .status(401, body: "refresh token revoked") }
        let reports = Reports()
        let request = FetchEvents(environment: environment(server, reports))
        request.callbackQueue = queue
        let error = try await #require(throws: SeedError.self) { try await request.value() }
        #expect(error == .signInRequired)
        #expect(server.hits("/v2/auth/renew") == 1)
        #expect(server.hits("/v2/events.json") == 1)
        #expect(reports.all.count == 1)
    }

    @Test func aPhotoIsUploadedAsMultipart() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("POST", "/v2/events/7/photos") { _ in .jsonString(#"{"stored":true}"#) }
        let photo = FileManager.default.temporaryDirectory.appendingPathComponent("photo-\(UUID()).jpg")
        try Data(repeating: 0xFF, count: 300_000).write(to: photo)
        defer { try? FileManager.default.removeItem(at: photo) }
        let request = UploadPhoto(environment: environment(server, Reports()), eventID: 7, photo: photo)
        request.callbackQueue = queue
        let answer = try await request.value()
        #expect(answer["stored"] == .bool(true))
        let received = try #require(server.receivedRequests("/v2/events/7/photos").first)
        #expect(received.header("Content-Type")?.hasPrefix("multipart/form-data; boundary=") == true)
        #expect(received.body.count > 300_000)
    }

    @Test func searchSendsAQueryAndSignInAFormWithoutAuthorization() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("GET", "/v2/events/search") { _ in .jsonString("[]") }
        server.route("POST", "/v2/auth/sign-in") { _ in .jsonString(#"{"token":"abc"}"#) }
        let environment = environment(server, Reports())
        let search = SearchEvents(environment: environment)
        search.callbackQueue = queue
        #expect(try await search.value() == [])
        let signIn = SignIn(environment: environment, user: "ada", password: "p&ss word")
        signIn.callbackQueue = queue
        #expect(try await signIn.value().token == "abc")
        #expect(server.receivedRequests("/v2/events/search").first?.query == "q=jazz%20%26%20blues")
        let received = try #require(server.receivedRequests("/v2/auth/sign-in").first)
        #expect(received.bodyString == "user=ada&password=p%26ss%20word")
        #expect(received.header("Authorization") == nil)
        #expect(received.header("Content-Type") == "application/x-www-form-urlencoded; charset=utf-8")
    }

    @Test func theArticleShowsExactlyThisCode() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        let root = folder.deletingLastPathComponent().deletingLastPathComponent()
        let article = try String(
            contentsOf: root.appendingPathComponent("docs/client-and-authorization.md"), encoding: .utf8)
        let source = try String(
            contentsOf: folder.appendingPathComponent("SeedClient.swift"), encoding: .utf8)
        let snippets = source.components(separatedBy: "// MARK: - Snippet: ").dropFirst()
        #expect(snippets.count == 8)
        for snippet in snippets {
            let lines = snippet.split(separator: "\n", omittingEmptySubsequences: false)
            let code = lines.dropFirst().joined(separator: "\n").trimmingCharacters(in: .newlines)
            #expect(
                article.contains("```swift\n" + code + "\n```"), "docs/client-and-authorization.md lacks \(lines[0])")
        }
    }
}
