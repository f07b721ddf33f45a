import ConnectionKitTesting
import Foundation
import Testing

@Suite struct ConcurrencyTests {
    @Test func sixtyFourConnectionsAreServedConcurrently() throws {
        let server = try TestServer.started()
        defer { server.stop() }
        // Each answer waits 0.5 s; served one after another, 64 of them would take 32 s.
        server.route("/slow") { TestResponse(body: .data(Data(($0.query ?? "").utf8)), delayBeforeHeaders: 0.5) }
        let started = Date()
        let clients = try (0..<64).map { index -> RawHTTPClient in
            let client = try RawHTTPClient(port: server.port)
            try client.sendGET("/slow?\(index)")
            return client
        }
        for (index, client) in clients.enumerated() {
            let response = try client.readResponse(timeout: 10)
            #expect(String(decoding: response.body, as: UTF8.self) == "\(index)")
        }
        #expect(Date().timeIntervalSince(started) < 8)
        #expect(server.acceptedConnectionCount == 64)
        #expect(server.hits("/slow") == 64)
    }
}
