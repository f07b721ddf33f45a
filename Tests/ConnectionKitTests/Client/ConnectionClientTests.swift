import ConnectionKitTesting
import Foundation
import Testing

@testable import ConnectionKit

/// Clients of their own: each keeps its requests, history and statistics apart from every other client's,
/// and the shared client stays the default.
@Suite("Clients of their own", .offThePool, .timeLimit(.minutes(5)))
struct ConnectionClientTests {
    @Test(
        "two clients, over URLSession and over libcurl, each hold only their own live requests, history and statistics")
    func twoClientsKeepTheirRequestsApart() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        let gate = OpenableGate()
        server.route("/held") { request in
            gate.pass()
            return .text(request.query ?? "")
        }
        let overURLSession = ConnectionClient(label: "apart-urlsession")
        let overLibcurl = try ConnectionClient(checking: .libcurl, label: "apart-libcurl")
        #expect(overURLSession.transport.name == "URLSession")
        #expect(overLibcurl.transport.name == "libcurl")
        let recorder = EndingRecorder()
        let onURLSession = (0..<6).map { FetchOnClient(server.url("/held?u\($0)"), on: overURLSession) }
        let onLibcurl = (0..<4).map { FetchOnClient(server.url("/held?c\($0)"), on: overLibcurl) }
        for request in onURLSession + onLibcurl {
            recorder.track(request, queue: testCallbackQueue)
            request.start()
        }
        // Held by the server: every request is live.
        #expect(Self.ids(overURLSession.registry.activeRequests) == Self.ids(onURLSession))
        #expect(Self.ids(overLibcurl.registry.activeRequests) == Self.ids(onLibcurl))
        #expect(ConnectionRegistry.shared.requests(of: FetchOnClient.self).isEmpty)
        #expect(overURLSession.activity.liveRequestCount == 6)
        #expect(overLibcurl.activity.liveRequestCount == 4)
        // Every request reached the server, and every loop of the libcurl client (one per core for bodies kept in
        // memory, one for bodies saved to a file) runs, named after the client.
        #expect(await server.waitForHits("/held", count: 10))
        let loops = ProcessThreads.listed(overLibcurl.ownedThreadIDs)
        #expect(
            loops.count == ConnectionClient.libcurlThreadCount
                && loops.allSatisfy { $0.name.hasPrefix(overLibcurl.threadNamePrefix) }, "\(loops)")
        gate.open()
        await recorder.ended(within: 30)
        for request in onURLSession + onLibcurl {
            #expect(recorder.first(of: request).map { (try? $0.get()) != nil } == true, "\(request.target)")
        }

        #expect(
            Set(overURLSession.registry.history(of: FetchOnClient.self).map(\.identifier)) == Self.runs(onURLSession))
        #expect(Set(overLibcurl.registry.history(of: FetchOnClient.self).map(\.identifier)) == Self.runs(onLibcurl))
        #expect(ConnectionRegistry.shared.history(of: FetchOnClient.self).isEmpty)
        #expect(overURLSession.registry.statistics(of: FetchOnClient.self)?.requests == 6)
        #expect(overLibcurl.registry.statistics(of: FetchOnClient.self)?.requests == 4)
        #expect(ConnectionRegistry.shared.statistics(of: FetchOnClient.self) == nil)

        try await within(30, "the shutdown of both clients") {
            await overURLSession.shutdown()
            await overLibcurl.shutdown()
        }
        #expect(ProcessThreads.listed(loops.map { Int32($0.id) }).isEmpty, "the loops ended with the shutdown")
    }

    @Test("a request whose class keeps the default client is the shared client's, as before clients existed")
    func theSharedClientIsTheDefault() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/plain") { _ in .text("plain") }
        #expect(ConnectionRegistry.shared === ConnectionClient.shared.registry)
        #expect(NetworkActivity.shared === ConnectionClient.shared.activity)
        #expect(ConnectionClient.shared.transport.name == ConnectionTransport.default.name)
        let request = FetchData(server.url("/plain"))
        #expect(request.client === ConnectionClient.shared)
        let endings = Endings(request)
        request.start()
        _ = try await endings.value()
        #expect(ConnectionRegistry.shared.history(of: FetchData.self).contains { $0.identifier == request.identifier })
    }

    @Test("each client's event stream carries its own requests' events only")
    func eventsStayWithTheirClient() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/event") { _ in .text("event") }
        let mine = ConnectionClient(label: "events-mine")
        let other = ConnectionClient(label: "events-other")
        let events = mine.registry.events
        let recorder = EndingRecorder()
        let own = FetchOnClient(server.url("/event?mine"), on: mine)
        let foreign = FetchOnClient(server.url("/event?other"), on: other)
        for request in [foreign, own] {
            recorder.track(request, queue: testCallbackQueue)
            request.start()
        }
        await recorder.ended(within: 30)
        let seen = try await within(15, "the client's own ending event") { () -> [UUID] in
            var seen: [UUID] = []
            for await event in events {
                seen.append(event.snapshot.identifier)
                if event.kind.isEnd { break }
            }
            return seen
        }
        #expect(!seen.isEmpty)
        #expect(seen.allSatisfy { $0 == own.identifier }, "the other client's request is not in this stream")
        try await within(30, "the shutdown of both clients") {
            await mine.shutdown()
            await other.shutdown()
        }
    }

    private static func ids(_ requests: [AnyConnectionRequest]) -> Set<ObjectIdentifier> {
        Set(requests.map(ObjectIdentifier.init))
    }

    private static func runs(_ requests: [AnyConnectionRequest]) -> Set<UUID> {
        Set(requests.map(\.identifier))
    }
}
