import ConnectionKitTesting
import Foundation
import Testing

@testable import ConnectionKit

/// A client on libcurl is declared without `try` (`static let client = ...`): where libcurl cannot run, the
/// client still exists and each of its requests fails with a typed error, nothing sent.
@Suite("A client whose transport cannot run", .offThePool, .timeLimit(.minutes(1)))
struct UnavailableTransportTests {
    @Test("a libcurl client without libcurl is created, and its request fails with transportUnavailable, nothing sent")
    func requestsFailWithTheReason() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/any") { _ in .text("sent") }
        let missing = ConnectionTransport.UnavailableError(reason: "libcurl could not be loaded (test)")
        let client = ConnectionClient(
            parts: ("no-libcurl", "CKt."), made: .failure(missing), features: ConnectionClient.Features())
        #expect(client.transport.name == "libcurl")
        let request = FetchOnClient(server.url("/any"), on: client)
        request.callbackQueue = testCallbackQueue
        let error = await #expect(throws: ConnectionError.self) { try await request.value() }
        #expect(error?.kind == .transportUnavailable)
        #expect(error?.reason == missing.reason)
        #expect(
            error?.localizedDescription
                == "FetchOnClient was not sent: its transport is unavailable: libcurl could not be loaded (test)")
        #expect(server.hits("/any") == 0)
        try await within(60, "the shutdown of a client without a transport") { await client.shutdown() }
    }

    @Test("ConnectionClient(transport: .libcurl()) needs no try and, with libcurl here, sends over libcurl")
    func declaredWithoutTry() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/any") { _ in .text("sent") }
        let declared = ConnectionClient(transport: .libcurl(), label: "declared")
        let checked = try ConnectionClient(checking: .libcurl(), label: "checked")
        for client in [declared, checked] {
            #expect(client.transport.name == "libcurl")
            let request = FetchOnClient(server.url("/any"), on: client)
            request.callbackQueue = testCallbackQueue
            #expect(try await request.value() == Data("sent".utf8))
            try await within(60, "the shutdown of \(client)") { await client.shutdown() }
        }
        #expect(server.hits("/any") == 2)
    }
}
