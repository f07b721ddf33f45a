import ConnectionKit
import ConnectionKitTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking

    /// Metrics per attempt: every field over libcurl; over URLSession on Linux only ConnectionKit's own timings.
    @Suite("Transport metrics", .offThePool, .timeLimit(.minutes(10)), .exclusive)
    struct TransportMetricsTests {
        @Test(
            "libcurl: a fresh connection reports name lookup, connect and not reused; the next request to the server reuses it"
        )
        func freshThenReused() async throws {
            let libcurl = try ConnectionTransport.libcurl()
            let server = try TestServer.started()
            defer { server.stop() }
            server.route("/data") { _ in TestResponse(body: .data(Data(repeating: 1, count: 1000))) }

            let first = OverTransport(server.url("/data"), over: libcurl, debugOutput: true)
            _ = try await first.value()
            let fresh = try #require(first.metrics.last)
            #expect(first.metrics.attempts.count == 1)
            #expect(fresh.attempt == 1)
            #expect(fresh.isReusedConnection == false)
            #expect(fresh.domainLookupDuration != nil)
            #expect(fresh.connectDuration != nil)
            #expect(fresh.secureConnectionDuration == nil, "plain HTTP has no TLS handshake")
            #expect(fresh.httpVersion == "http/1.1")
            #expect(fresh.remoteAddress == "127.0.0.1")
            #expect(fresh.remotePort == server.port)
            #expect(fresh.bytesReceived == 1000)
            #expect(fresh.bytesSent == 0)
            let firstByte = try #require(fresh.transferTimeToFirstByte)
            let total = try #require(fresh.transferDuration)
            #expect(firstByte <= total)
            let attempt = try #require(fresh.duration)
            #expect(total <= attempt, "the transfer lies within the attempt")

            let second = OverTransport(server.url("/data"), over: libcurl, debugOutput: true)
            _ = try await second.value()
            let reused = try #require(second.metrics.last)
            #expect(reused.isReusedConnection == true)
            #expect(reused.connectDuration == nil, "no connect on a reused connection")
            #expect(reused.remotePort == server.port)
            #expect(server.acceptedConnectionCount == 1)
            #expect(Set(server.receivedRequests("/data").map(\.connectionID)).count == 1)
        }

        @Test("libcurl: the bytes sent and received are the request and response body sizes")
        func bytesEachWay() async throws {
            let libcurl = try ConnectionTransport.libcurl()
            let server = try TestServer.started()
            defer { server.stop() }
            server.route("/upload") { request in
                TestResponse(body: .data(Data(repeating: 2, count: request.body.count / 3)))
            }
            let request = OverTransport(
                server.url("/upload"), body: Data(repeating: 9, count: 300_000), method: .put, over: libcurl,
                debugOutput: true)
            let body = try await request.value()
            let metrics = try #require(request.metrics.last)
            #expect(body.count == 100_000)
            #expect(metrics.bytesSent == 300_000)
            #expect(metrics.bytesReceived == 100_000)
        }

        @Test("libcurl: the finished event's snapshot and the debug output's response block carry the metrics")
        func inEventsAndDebugOutput() async throws {
            let libcurl = try ConnectionTransport.libcurl()
            let server = try TestServer.started()
            defer { server.stop() }
            server.route("/data") { _ in .text("hello") }
            DebugCapture.install()
            let request = OverTransport(server.url("/data"), over: libcurl, debugOutput: true)
            // Each run has an identifier of its own: this server's port tells this request's events apart.
            let sent = server.url("/data").absoluteString
            let stream = ConnectionRegistry.shared.events
            let ending = Task { () -> ConnectionEvent? in
                for await event in stream where event.snapshot.redactedURL == sent && event.kind.isEnd {
                    return event
                }
                return nil
            }
            let deadline = Task {
                try await Task.sleep(for: .seconds(10))
                ending.cancel()
            }
            _ = try await request.value()
            let event = await ending.value
            deadline.cancel()
            let snapshot = try #require(event, "no end event within 10 s").snapshot
            #expect(snapshot.metrics == request.metrics)
            #expect(snapshot.metrics.last?.remotePort == server.port)
            #expect(snapshot.metrics.last?.bytesReceived == 5)

            let block = DebugCapture.blocks(for: request.identifier).last ?? ""
            #expect(block.contains("\n  metrics: attempt 1, new connection, 127.0.0.1:\(server.port), http/1.1, dns "))
            #expect(block.contains(", sent 0 bytes, received 5 bytes"))
        }

        @Test("URLSession on Linux: the attempt is timed by ConnectionKit, the connection-level fields stay nil")
        func urlSessionOnLinux() async throws {
            let server = try TestServer.started()
            defer { server.stop() }
            server.route("/data") { _ in .text("hello") }
            let request = OverTransport(server.url("/data"), over: .urlSession, debugOutput: true)
            _ = try await request.value()
            let metrics = try #require(request.metrics.last)
            #expect(metrics.attempt == 1)
            #expect(metrics.duration != nil)
            #expect(metrics.timeToFirstByte != nil)
            #expect(metrics.isReusedConnection == nil)
            #expect(metrics.connectDuration == nil)
            #expect(metrics.httpVersion == nil)
            #expect(metrics.remoteAddress == nil)
            #expect(metrics.remotePort == nil)
            #expect(metrics.bytesSent == nil)
            #expect(metrics.bytesReceived == nil)
            #expect(metrics.transferDuration == nil)
        }

        @Test("before its first run a request has no metrics")
        func emptyBeforeTheFirstRun() {
            let request = OverTransport(URL(string: "http://127.0.0.1:9/")!, over: .urlSession, debugOutput: true)
            #expect(request.metrics.attempts.isEmpty)
            #expect(request.metrics.last == nil)
        }
    }
#endif
