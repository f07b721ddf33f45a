import ConnectionKit
import ConnectionKitInspector
import ConnectionKitTesting
import Foundation
import Testing

/// A request that belongs to the client it is given (the `client` hook).
final class ClientProbe: ConnectionRequest<Data>, @unchecked Sendable {
    // Safe: only immutable stored properties.
    let target: URL
    let owner: ConnectionClient

    init(_ target: URL, on owner: ConnectionClient) {
        self.target = target
        self.owner = owner
    }

    override var url: URL? { target }
    override var client: ConnectionClient { owner }
}

/// An inspector shows one client: its history and statistics, none of another client's.
@Suite(.timeLimit(.minutes(2))) struct InspectorClientTests {
    @Test func anInspectorOfAClientShowsThatClientsRunsOnly() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/seen") { _ in .text("seen") }
        let inspected = ConnectionClient(label: "inspected")
        let other = ConnectionClient(label: "not-inspected")
        let mine = ClientProbe(server.url("/seen?mine"), on: inspected)
        let theirs = ClientProbe(server.url("/seen?theirs"), on: other)
        let endings = EndingRecorder()
        for request in [mine, theirs] {
            endings.track(request, queue: testCallbackQueue)
            request.start()
        }
        await endings.ended(within: 30)

        let history = try Self.fetch("/api/history", from: ConnectionInspector(client: inspected))
        #expect(history.contains(mine.identifier.uuidString))
        #expect(!history.contains(theirs.identifier.uuidString), "another client's run")
        let statistics = try Self.fetch("/api/statistics", from: ConnectionInspector(client: other))
        #expect(statistics.contains("ClientProbe"))
        let shared = try Self.fetch("/api/history", from: ConnectionInspector())
        #expect(!shared.contains(mine.identifier.uuidString) && !shared.contains(theirs.identifier.uuidString))
        await inspected.shutdown()
        await other.shutdown()
    }

    /// Starts `inspector`, reads `path` with its token, and stops it.
    private static func fetch(_ path: String, from inspector: ConnectionInspector) throws -> String {
        defer { inspector.stop() }
        let url = try inspector.start()
        let token = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first?.value ?? ""
        let answer = try InspectorClient.send("GET", "\(path)?token=\(token)", port: url.port ?? 0)
        #expect(answer.status == 200)
        return answer.text
    }
}
