#if canImport(Glibc)
    import ConnectionKit
    import Foundation
    import Glibc
    import Testing

    /// Interim responses carry no answer: a server that sends `100 Continue` forever must not keep a
    /// request alive past its idle timeout (issue 30). Over URLSession, FoundationNetworking handed each
    /// one over as a response, which restarted the idle timeout; the request ran forever.
    @Suite("A stream of 100 Continue does not defeat the idle timeout", .timeLimit(.minutes(1)))
    struct InformationalFloodTests {
        final class Patient: ConnectionRequest<Data>, @unchecked Sendable {
            // Safe: only immutable stored properties.
            let target: URL
            let chosen: ConnectionTransport
            init(_ target: URL, over transport: ConnectionTransport) {
                self.target = target
                self.chosen = transport
            }
            override var url: URL? { target }
            override var transport: ConnectionTransport { chosen }
            override var timeoutInterval: TimeInterval { 1 }
        }

        @Test("100 Continue every 100 ms ends in timedOut after the 1 s idle timeout")
        func continueStreamTimesOut() async throws {
            let transport = ConnectionTransport.default
            let server = try RawLoopbackServer { connection in
                guard connection.readHead() != nil else { return }
                // Until the client goes away (or the server is released), never a final answer.
                while connection.write("HTTP/1.1 100 Continue\r\n\r\n") { usleep(100_000) }
            }
            let started = ContinuousClock.now
            let error = await #expect(throws: ConnectionError.self) {
                try await Patient(server.url.appendingPathComponent("interim"), over: transport).value()
            }
            let elapsed = ContinuousClock.now - started
            #expect(error?.isTimedOut == true, "\(String(describing: error))")
            // Never early; and the bound of 30 s still tells an ending from none (without the fix the
            // interim answers keep the request alive until the suite's time limit) on a loaded machine,
            // where the first seconds of a parallel test run delay timers by several seconds.
            #expect(elapsed >= .milliseconds(950), "ended after \(elapsed), before the 1 s idle timeout")
            #expect(elapsed < .seconds(30), "ended after \(elapsed)")
        }

        @Test("a 100 Continue before the answer is skipped: the answer and its body arrive")
        func continueThenAnswer() async throws {
            let server = try RawLoopbackServer { connection in
                guard connection.readHead() != nil else { return }
                connection.write("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
                _ = connection.readHead()
            }
            let body = try await Patient(server.url.appendingPathComponent("answer"), over: .default).value()
            #expect(body == Data("ok".utf8))
        }
    }
#endif
