#if canImport(Glibc)
    import ConnectionKit
    import Foundation
    import Glibc
    import Testing

    /// Interim responses carry no answer: a server that sends `100 Continue` forever must not keep a
    /// request alive past its idle timeout (issue 30). Over URLSession, FoundationNetworking handed each
    /// one over as a response, which restarted the idle timeout; the request ran forever.
    @Suite("A stream of 100 Continue does not defeat the idle timeout", .offThePool, .timeLimit(.minutes(1)))
    struct InformationalFloodTests {
        final class Patient: ConnectionRequest<Data>, @unchecked Sendable {
            // Safe: only immutable stored properties.
            let target: URL
            let chosen: ConnectionTransport
            let idleTimeout: TimeInterval
            init(_ target: URL, over transport: ConnectionTransport, idleTimeout: TimeInterval = 1) {
                self.target = target
                self.chosen = transport
                self.idleTimeout = idleTimeout
            }
            override var url: URL? { target }
            override var transport: ConnectionTransport { chosen }
            override var timeoutInterval: TimeInterval { idleTimeout }
        }

        @Test("100 Continue every 100 ms ends in timedOut after the 1 s idle timeout")
        func continueStreamTimesOut() async throws {
            let transport = ConnectionTransport.default
            let server = try RawLoopbackServer { connection in
                guard connection.readHead() != nil else { return }
                // Until the client goes away (or the server is released), never a final answer.
                while connection.write("HTTP/1.1 100 Continue\r\n\r\n") { usleep(100_000) }
            }
            let request = Patient(server.url.appendingPathComponent("interim"), over: transport)
            let error = await #expect(throws: ConnectionError.self) { try await request.value() }
            #expect(error?.isTimedOut == true, "\(String(describing: error))")
            // The request's own clock, not the awaiting task's: on a loaded machine the task resumes late
            // when other tests hold the cooperative threads. Never early; and the bound of 30 s still tells
            // an ending from none (without the fix the interim answers keep the request alive until the
            // suite's time limit), where the first seconds of a parallel run delay timers by several seconds.
            let started = try #require(request.dateStarted)
            let finished = try #require(request.dateFinished)
            let elapsed = finished.timeIntervalSince(started)
            #expect(elapsed >= 0.95, "ended after \(elapsed) s, before the 1 s idle timeout")
            #expect(elapsed < 30, "ended after \(elapsed) s")
        }

        @Test("a 100 Continue before the answer is skipped: the answer and its body arrive")
        func continueThenAnswer() async throws {
            let server = try RawLoopbackServer { connection in
                guard connection.readHead() != nil else { return }
                connection.write("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
                _ = connection.readHead()
            }
            // The answer comes at once: a long idle timeout only bounds a failure (1 s timed out under
            // ThreadSanitizer on a loaded machine).
            let body = try await Patient(server.url.appendingPathComponent("answer"), over: .default, idleTimeout: 60)
                .value()
            #expect(body == Data("ok".utf8))
        }
    }
#endif
