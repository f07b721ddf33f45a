import ConnectionKitTesting
import Foundation
import Testing

@Suite(.timeLimit(.minutes(2))) struct TimingTests {
    @Test func delayBeforeHeadersIsHonoured() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/slow") { _ in TestResponse(body: .data(Data("late".utf8)), delayBeforeHeaders: 0.3) }
        let started = Date()
        let (data, response) = try await HTTPClient.get(server.url("/slow"))
        #expect(Date().timeIntervalSince(started) >= 0.3)
        #expect(response.statusCode == 200)
        #expect(String(decoding: data, as: UTF8.self) == "late")
    }

    @Test func dripDeliversTheWholeBodyOverTime() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        let payload = Data((0..<100).map { UInt8($0) })
        // 100 bytes in chunks of 25: four chunks, three intervals of 0.1 s.
        server.route("/drip") { _ in TestResponse(body: .drip(payload, chunkSize: 25, interval: 0.1)) }
        let started = Date()
        let (data, response) = try await HTTPClient.get(server.url("/drip"))
        #expect(Date().timeIntervalSince(started) >= 0.3)
        #expect(response.value(forHTTPHeaderField: "Content-Length") == "100")
        #expect(data == payload)
    }
}
