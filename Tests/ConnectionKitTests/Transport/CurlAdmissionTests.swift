import ConnectionKitTesting
import Foundation
import Testing

@testable import ConnectionKit

#if canImport(FoundationNetworking)
    import FoundationNetworking

    /// How the libcurl transport shares one host's connection limit across its in-memory loops.
    @Suite("The libcurl transport's loops: admission per host", .offThePool, .timeLimit(.minutes(2)))
    struct CurlAdmissionTests {
        /// A transfer to `url` that is never started (the admission only reads its host).
        static func transfer(_ url: String) throws -> CurlTransfer {
            let transport = try CurlTransport.shared.get()
            return CurlTransfer(
                request: URLRequest(url: try #require(URL(string: url))), bodyFile: nil, transport: transport,
                savedToFile: false)
        }

        @Test("a host's requests beyond the limit wait, in order, and each takes the place of one that left")
        func heldInOrder() throws {
            let admission = CurlAdmission(loops: 2, perLoop: 1)
            let (first, second, third, fourth) = try (
                Self.transfer("http://a.test/1"), Self.transfer("http://a.test/2"), Self.transfer("http://a.test/3"),
                Self.transfer("http://a.test/4")
            )
            #expect(admission.admit(first) == (0, true))
            #expect(admission.admit(second) == (1, true))
            #expect(admission.admit(third) == (nil, true), "both loops run one transfer to a.test: held")
            #expect(admission.admit(fourth) == (nil, true))
            // Another host is not held behind a.test.
            let other = try Self.transfer("http://b.test/1")
            #expect(admission.admit(other).loop != nil)
            #expect(admission.left(second, loop: 1) === third, "the first held takes the place")
            #expect(admission.loop(of: third) == 1, "on the loop whose connection was freed")
            #expect(admission.left(third, loop: 1) === fourth)
            #expect(admission.left(fourth, loop: 1) == nil, "nothing left to hand over")
            #expect(admission.left(fourth, loop: 1) == nil, "a second leave of one transfer changes nothing")
            #expect(admission.admit(try Self.transfer("http://a.test/5")).loop == 1, "the freed place is open again")
        }

        @Test("a cancelled held transfer is taken out and never handed a place; a running one stays on its loop")
        func withdrawal() throws {
            let admission = CurlAdmission(loops: 1, perLoop: 1)
            let running = try Self.transfer("http://a.test/1")
            let cancelled = try Self.transfer("http://a.test/2")
            let waiting = try Self.transfer("http://a.test/3")
            _ = admission.admit(running)
            _ = admission.admit(cancelled)
            _ = admission.admit(waiting)
            guard case .withdrawn = admission.withdraw(cancelled) else {
                Issue.record("the held transfer was not withdrawn")
                return
            }
            guard case .loop(0) = admission.withdraw(running) else {
                Issue.record("a running transfer's cancel must go to its loop")
                return
            }
            #expect(admission.left(running, loop: 0) === waiting, "the cancelled one is skipped")
            guard case .none = admission.withdraw(cancelled) else {
                Issue.record("withdrawn twice")
                return
            }
        }

        @Test("after the stop, held transfers are handed back to be failed and new ones are refused")
        func stop() throws {
            let admission = CurlAdmission(loops: 1, perLoop: 1)
            let running = try Self.transfer("http://a.test/1")
            let held = try Self.transfer("http://a.test/2")
            _ = admission.admit(running)
            _ = admission.admit(held)
            #expect(admission.stop().map(ObjectIdentifier.init) == [ObjectIdentifier(held)])
            #expect(admission.left(running, loop: 0) == nil, "no place is handed over after the stop")
            #expect(admission.admit(try Self.transfer("http://a.test/3")) == (nil, false))
        }

        @Test("URLs of one server share a host key; user info, path and case do not split it")
        func hostKeys() {
            #expect(CurlTransfer.hostKey(of: URL(string: "http://127.0.0.1:8080/a?b#c")) == "http://127.0.0.1:8080")
            #expect(CurlTransfer.hostKey(of: URL(string: "HTTPS://user:pw@Example.COM/x")) == "https://example.com")
            #expect(CurlTransfer.hostKey(of: URL(string: "http://[::1]:81?q")) == "http://[::1]:81")
            #expect(CurlTransfer.hostKey(of: URL(string: "http://h.test#f")) == "http://h.test")
            #expect(
                CurlTransfer.hostKey(of: URL(string: "HTTP://BÜCHER.Example:8080/a"))
                    == CurlTransfer.hostKey(of: URL(string: "http://bücher.example:8080/b")))
        }

        /// A host's idle connection keeps its requests: sequential requests to one server stay on the loop
        /// that has its connection, even after another server's hanging request made that loop the busier.
        @Test("libcurl: requests sent one at a time stay on one connection while another server's request hangs")
        func idleConnectionKeepsItsHost() async throws {
            let client = try ConnectionClient(checking: .libcurl, label: "admission")
            let transport = client.transport
            let server = try TestServer.started()
            let hanging = try TestServer.started()
            defer {
                server.stop()
                hanging.stop()
            }
            server.route("/n") { _ in .text("n") }
            hanging.route("/hang") { _ in TestResponse(fault: .neverRespond) }
            _ = try await OverTransport(server.url("/n"), over: transport).value()
            // Both loops are idle now: the hanging request goes to the first, where the connection is.
            let stuck = OverTransport(hanging.url("/hang"), over: transport)
            stuck.start()
            #expect(await hanging.waitForHits("/hang", count: 1, timeout: 30))
            for _ in 0..<10 {
                _ = try await OverTransport(server.url("/n"), over: transport).value()
            }
            #expect(server.hits("/n") == 11)
            #expect(server.acceptedConnectionCount == 1, "a second loop opened a connection of its own")
            stuck.cancel()
            await client.shutdown()
        }
    }
#endif
