#if canImport(Glibc)
    import ConnectionKit
    import ConnectionKitTesting
    import Foundation
    import Testing

    /// A response head of tens of thousands of lines with one name (issue 30). libcurl: ConnectionKit
    /// parses it in linear time and refuses it (`responseTooLarge`), and another origin's request is
    /// served meanwhile. URLSession parses the head inside FoundationNetworking, out of ConnectionKit's
    /// reach, for minutes on its one serial queue (docs/linux.md), hence libcurl only.
    @Suite("A head of 76,000 lines with one name (libcurl)", .offThePool, .timeLimit(.minutes(1)))
    struct HeaderFloodTests {
        /// 76,000 `a:` lines: 304,000 bytes, just under libcurl's own 300 KiB bound on a head.
        static let head =
            "HTTP/1.1 200 OK\r\n" + String(repeating: "a:\r\n", count: 76_000) + "Content-Length: 2\r\n\r\nok"

        @Test("ends in responseTooLarge within seconds, and another origin's request sent meanwhile is served")
        func floodIsRefusedQuickly() async throws {
            let transport = try ConnectionTransport.libcurl()
            let hostile = try RawLoopbackServer { connection in
                guard connection.readHead() != nil else { return }
                connection.write(Self.head)
                _ = connection.readHead()
            }
            let other = try TestServer.started()
            defer { other.stop() }
            other.route("/fine") { _ in .text("fine") }
            let started = ContinuousClock.now
            async let flooded: Data = ReuseProbe(hostile.url.appendingPathComponent("flood"), over: transport).value()
            let fine = try await ReuseProbe(other.url("/fine"), over: transport).value()
            #expect(fine == Data("fine".utf8))
            do {
                let body = try await flooded
                Issue.record("expected responseTooLarge, got \(body.count) bytes")
            } catch let error as ConnectionError {
                guard case .responseTooLarge = error.kind else {
                    Issue.record("expected responseTooLarge, got \(error)")
                    return
                }
            }
            let elapsed = ContinuousClock.now - started
            // About 1 s alone; the bound leaves room for the parallel start of a loaded test run, where a
            // CI run saw 11 s.
            #expect(elapsed < .seconds(30 * testTimeScale), "took \(elapsed)")
        }

        @Test("a head over 300 KiB in all, interim blocks included, ends in responseTooLarge")
        func headBytesAreBounded() async throws {
            let transport = try ConnectionTransport.libcurl()
            let hostile = try RawLoopbackServer { connection in
                guard connection.readHead() != nil else { return }
                // 20,000 interim blocks of 25 bytes: 500 KB of head and never a final answer.
                for _ in 0..<20 {
                    guard connection.write(String(repeating: "HTTP/1.1 100 Continue\r\n\r\n", count: 1_000)) else {
                        return
                    }
                }
                _ = connection.readHead()
            }
            let error = await #expect(throws: ConnectionError.self) {
                try await ReuseProbe(hostile.url.appendingPathComponent("interim"), over: transport).value()
            }
            guard case .responseTooLarge? = error?.kind else {
                Issue.record("expected responseTooLarge, got \(String(describing: error))")
                return
            }
        }
    }
#endif
