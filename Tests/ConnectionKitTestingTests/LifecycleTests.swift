import ConnectionKitTesting
import Foundation
import Testing

@Suite(.timeLimit(.minutes(2))) struct LifecycleTests {
    @Test func stopReturnsQuicklyWithStalledConnections() async throws {
        let server = try TestServer.started()
        server.route("/stall") { _ in TestResponse(fault: .neverFinishHeaders) }
        server.route("/drip") { _ in TestResponse(body: .drip(Data(count: 100), chunkSize: 1, interval: 10)) }
        let handled = DispatchSemaphore(value: 0)
        server.route("/delay") { _ in
            handled.signal()
            return TestResponse(delayBeforeHeaders: 60)
        }
        server.route("/silent") { _ in
            handled.signal()
            return TestResponse(fault: .neverRespond)
        }

        let stalled = try RawHTTPClient(port: server.port)
        try stalled.sendGET("/stall")
        _ = try stalled.readUntil("never-finish-headers")
        let dripping = try RawHTTPClient(port: server.port)
        try dripping.sendGET("/drip")
        _ = try dripping.readUntil("\r\n\r\n")
        let delayed = try RawHTTPClient(port: server.port)
        try delayed.sendGET("/delay")
        let silent = try RawHTTPClient(port: server.port)
        try silent.sendGET("/silent")
        // Both requests must have been read, or closing them would reset rather than end them.
        #expect(await handled.signalled(within: 5))
        #expect(await handled.signalled(within: 5))

        let started = Date()
        server.stop()
        #expect(Date().timeIntervalSince(started) < 1)
        #expect(stalled.readUntilClosed().ending == .eof)
        #expect(dripping.readUntilClosed().ending == .eof)
        #expect(delayed.readUntilClosed().ending == .eof)
        #expect(silent.readUntilClosed().ending == .eof)
        #expect(server.openConnectionCount == 0)
    }

    @Test func stopIsIdempotentAndRefusesNewConnections() throws {
        let server = try TestServer.started()
        let port = server.port
        server.stop()
        server.stop()
        #expect(throws: (any Error).self) { _ = try RawHTTPClient(port: port) }
    }

    @Test func startTwiceThrowsAndRestartWorks() throws {
        let server = TestServer()
        try server.start()
        #expect(throws: TestServerError.alreadyRunning) { try server.start() }
        server.stop()
        try server.start()
        defer { server.stop() }
        server.route("/again") { _ in .text("again") }
        let client = try RawHTTPClient(port: server.port)
        try client.sendGET("/again")
        #expect(try client.readResponse().status == 200)
    }

    @Test func droppingTheServerStopsIt() throws {
        var port = 0
        do {
            let server = try TestServer.started()
            port = server.port
        }
        #expect(throws: (any Error).self) { _ = try RawHTTPClient(port: port) }
    }
}
