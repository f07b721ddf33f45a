import ConnectionKitTesting
import Foundation
import Testing

@Suite(.timeLimit(.minutes(2))) struct HitCountingTests {
    @Test func hitsCountEveryRequestForThePathAndReset() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/counted") { _ in .text("ok") }
        #expect(server.hits("/counted") == 0)
        for index in 0..<3 {
            _ = try await HTTPClient.get(server.url("/counted?n=\(index)"))
        }
        _ = try await HTTPClient.get(server.url("/other"))
        #expect(server.hits("/counted") == 3)
        #expect(server.hits("/other") == 1)
        #expect(server.receivedRequests("/counted").map(\.query) == ["n=0", "n=1", "n=2"])

        server.resetCounters()
        #expect(server.hits("/counted") == 0)
        #expect(server.receivedRequests("/counted").isEmpty)
        _ = try await HTTPClient.get(server.url("/counted"))
        #expect(server.hits("/counted") == 1)
    }

    @Test func serversAreIndependent() async throws {
        let first = try TestServer.started()
        let second = try TestServer.started()
        defer {
            first.stop()
            second.stop()
        }
        #expect(first.port != second.port)
        first.route("/x") { _ in .text("first") }
        let (data, _) = try await HTTPClient.get(first.url("/x"))
        let (_, missing) = try await HTTPClient.get(second.url("/x"))
        #expect(String(decoding: data, as: UTF8.self) == "first")
        #expect(missing.statusCode == 404)
        #expect(first.hits("/x") == 1)
        #expect(second.hits("/x") == 1)
    }
}
