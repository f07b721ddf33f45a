import ConnectionKit
import ConnectionKitTesting
import Foundation
import Testing

/// The user-code examples of this target, run against the loopback server.
// Serialized: the registry test cancels every `FetchEvents` of this module.
@Suite("User code from the README and the guides", .serialized, .timeLimit(.minutes(1)))
struct UserCodeTests {
    private static func environment(_ server: TestServer) -> SeedEnvironment {
        SeedEnvironment(
            baseURL: server.url("/v2/"), credentials: InMemoryCredentialStore(["token": "t0ken"]),
            report: { _, _ in })
    }

    @Test @MainActor func theAppSuperclassEndpointLoadsFromTheMainActor() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("GET", "/v2/events.json") { _ in .jsonString(#"[{"id":1,"name":"Launch"}]"#) }
        let model = EventsViewModel(environment: Self.environment(server))
        try await model.load(page: 2)
        #expect(model.events == [Event(id: 1, name: "Launch")])
        let sent = try #require(server.receivedRequests("/v2/events.json").first)
        #expect(sent.path == "/v2/events.json")
        #expect(sent.query == "page=2")
        #expect(sent.header("Authorization") == "Basic dDBrZW46")
        #expect(sent.header("User-Agent") == "Seed/2.1 ConnectionKit/\(DefaultHeaders.connectionKitVersion)")
    }

    @Test func theAppSuperclassEndpointLoadsFromANonisolatedFunction() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("GET", "/v2/events.json") { _ in .jsonString(#"[{"id":7,"name":"Jazz"}]"#) }
        #expect(try await firstEventName(environment: Self.environment(server)) == "Jazz")
    }

    @Test @MainActor func aRequestKeptByTheViewModelIsCancelledByIt() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("GET", "/v2/events.json") { _ in
            TestResponse(status: 200, headers: [], body: .data(Data("[]".utf8)), delayBeforeHeaders: 30)
        }
        let model = EventsViewModel(environment: Self.environment(server))
        let load = Task { try await model.load(page: 1) }
        #expect(await server.waitForHits("/v2/events.json", timeout: 10))
        model.cancel()
        await #expect(throws: SeedError.cancelled) { try await load.value }
    }

    @Test func theRegistryCancelsFromADetachedTask() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("GET", "/v2/events.json") { _ in
            TestResponse(status: 200, headers: [], body: .data(Data("[]".utf8)), delayBeforeHeaders: 30)
        }
        let request = FetchEvents(environment: Self.environment(server))
        request.callbackQueue = DispatchQueue(label: "UserCodeTests.registry")
        let load = Task { try await request.value() }
        #expect(await server.waitForHits("/v2/events.json", timeout: 10))
        #expect(await cancelEveryEventFetch() >= 1)
        await #expect(throws: SeedError.cancelled) { try await load.value }
    }
}
