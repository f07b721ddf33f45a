import ConnectionKitTesting
import Foundation
import Testing

/// Holds every caller until `count` callers are inside at once, or until `timeout` passes; remembers
/// whether they all got in together.
private final class ArrivalGate: @unchecked Sendable {
    // Safe: `arrived` and `timedOut` are only touched while `condition` is locked.
    private let condition = NSCondition()
    private var arrived = 0
    private var timedOut = false
    private let count: Int
    private let timeout: TimeInterval

    init(count: Int, timeout: TimeInterval) {
        self.count = count
        self.timeout = timeout
    }

    /// Counts the caller in and waits (on the server's connection thread) for the others.
    func arriveAndWait() {
        condition.lock()
        defer { condition.unlock() }
        arrived += 1
        if arrived >= count {
            condition.broadcast()
            return
        }
        let deadline = Date().addingTimeInterval(timeout)
        while arrived < count {
            guard condition.wait(until: deadline) else {
                timedOut = arrived < count
                return
            }
        }
    }

    /// Whether `count` callers were inside at once (no caller gave up waiting for the others).
    var allArrivedTogether: Bool {
        condition.lock()
        defer { condition.unlock() }
        return arrived >= count && !timedOut
    }
}

@Suite(.timeLimit(.minutes(2))) struct ConcurrencyTests {
    @Test func sixtyFourConnectionsAreServedConcurrently() throws {
        let server = try TestServer.started()
        defer { server.stop() }
        // Every handler waits until all 64 are inside at once: a server that serves fewer at a time never
        // gets there, and its handlers give up after the gate's timeout.
        let gate = ArrivalGate(count: 64, timeout: 10)
        server.route("/slow") { request in
            gate.arriveAndWait()
            return TestResponse(body: .data(Data((request.query ?? "").utf8)))
        }
        let started = Date()
        let clients = try (0..<64).map { index -> RawHTTPClient in
            let client = try RawHTTPClient(port: server.port)
            try client.sendGET("/slow?\(index)")
            return client
        }
        for (index, client) in clients.enumerated() {
            let response = try client.readResponse(timeout: 20)
            #expect(String(decoding: response.body, as: UTF8.self) == "\(index)")
        }
        #expect(Date().timeIntervalSince(started) < 8)
        #expect(gate.allArrivedTogether, "the 64 handlers were never inside at once")
        #expect(server.acceptedConnectionCount == 64)
        #expect(server.hits("/slow") == 64)
    }
}
