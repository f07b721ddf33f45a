import ConnectionKitTesting
import Foundation
import Testing

@testable import ConnectionKit

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A request run on a given client per call (`value(on:)`, `start(on:)`): that client's registry, history,
/// cache and transport serve the run, whatever the class's `client` hook says.
@Suite("A request on a client, per call", .offThePool, .timeLimit(.minutes(5)))
struct PerCallClientTests {
    @Test("one BasicConnectionRequest run on two clients per call: each client's history has its own run")
    func oneRequestOnTwoClients() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/health") { _ in .text("up") }
        let first = ConnectionClient.ownForTests(label: "per-call-first")
        let second = ConnectionClient.ownForTests(label: "per-call-second")
        let request = BasicConnectionRequest(request: URLRequest(url: server.url("/health")))
        let bodies = try await within(30, "two runs on two clients") {
            (try? await request.value(on: first), try? await request.value(on: second))
        }
        #expect(bodies.0.map { String(decoding: $0, as: UTF8.self) } == "up")
        #expect(bodies.1.map { String(decoding: $0, as: UTF8.self) } == "up")
        #expect(first.registry.history().count == 1)
        #expect(second.registry.history().count == 1)
        #expect(server.hits("/health") == 2)
        try await within(30, "the clients' shutdown") {
            await first.shutdown()
            await second.shutdown()
        }
    }

    @Test("the client given per call wins over the class's client hook, and its HTTP cache answers")
    func theGivenClientServesTheRun() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/fresh") { _ in
            TestResponse(headers: [TestHeader("Cache-Control", "max-age=60")], body: .data(Data("fresh".utf8)))
        }
        let classClient = ConnectionClient.ownForTests(label: "per-call-class")
        let cached = ConnectionClient.ownForTests(label: "per-call-cached", httpCache: .inMemory())
        let target = server.url("/fresh")
        let answers = try await within(30, "two runs on the cached client") { () -> [ResponseSource?] in
            var sources: [ResponseSource?] = []
            for _ in 0..<2 {
                let request = OnItsOwnClient(target, on: classClient)
                _ = try? await request.value(on: cached)
                sources.append(request.responseSource)
            }
            return sources
        }
        #expect(answers == [.network, .cache])
        #expect(server.hits("/fresh") == 1)
        #expect(cached.registry.history().count == 2)
        #expect(classClient.registry.history().isEmpty, "the class's own client saw nothing")
        try await within(30, "the clients' shutdown") {
            await classClient.shutdown()
            await cached.shutdown()
        }
    }

    @Test("start(on:) runs the request on the given client: it is live in that client's registry")
    func startOnAClient() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        let gate = OpenableGate()
        defer { gate.open() }
        server.routeHeld("/held", until: gate)
        let client = ConnectionClient.ownForTests(label: "per-call-start")
        let request = BasicConnectionRequest(request: URLRequest(url: server.url("/held")))
        request.callbackQueue = DispatchQueue(label: "per-call-start")
        let ended = Task {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                request.completionHandler = { _ in continuation.resume() }
                request.start(on: client)
            }
        }
        #expect(await server.waitForHits("/held"))
        #expect(client.registry.activeRequests.contains { $0 === request })
        #expect(!ConnectionClient.shared.registry.activeRequests.contains { $0 === request })
        gate.open()
        try await within(30, "the run's ending") { await ended.value }
        try await within(30, "the client's shutdown") { await client.shutdown() }
    }
}

/// A GET whose class names a client of its own.
private final class OnItsOwnClient: ConnectionRequest<Data>, @unchecked Sendable {
    // Safe: only immutable stored properties.
    let target: URL
    let owner: ConnectionClient
    init(_ target: URL, on owner: ConnectionClient) { (self.target, self.owner) = (target, owner) }
    override var url: URL? { target }
    override var client: ConnectionClient { owner }
}
