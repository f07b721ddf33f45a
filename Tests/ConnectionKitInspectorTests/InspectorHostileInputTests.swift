import ConnectionKit
import ConnectionKitTesting
import Foundation
import Testing

@testable import ConnectionKitInspector

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What a client without the token can make the inspector spend: idle sockets, slow heads, folded
/// lines, floods of empty lines, near-limit heads and surplus event streams each cost bounded work
/// and never lock out a page that has the token.
@Suite(.timeLimit(.minutes(2))) struct InspectorHostileInputTests {
    func started() throws -> (ConnectionInspector, port: Int, token: String) {
        let inspector = ConnectionInspector()
        let url = try inspector.start()
        let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        let token = components?.queryItems?.first { $0.name == "token" }?.value ?? ""
        return (inspector, url.port ?? 0, token)
    }

    @Test func fortyIdleSocketsDoNotLockOutAPageWithTheToken() throws {
        let (inspector, port, token) = try started()
        defer { inspector.stop() }
        // A page following the events is being answered: the idle sockets must not push it out.
        let stream = try Socket(port: port)
        defer { stream.close() }
        try stream.write(Data("GET /api/events?token=\(token) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n".utf8))
        #expect(String(decoding: stream.readSome(), as: UTF8.self).hasPrefix("HTTP/1.1 200"))

        let idle = try (0..<40).map { _ in try Socket(port: port) }
        defer { idle.forEach { $0.close() } }
        let answer = try InspectorClient.send("GET", "/api/statistics?token=\(token)", port: port)
        #expect(answer.status == 200, "the page with the token is served beside 40 idle sockets")
        #expect(HostileWire.isOpen(stream.fd), "the event stream was not evicted for an idle socket")
    }

    @Test func moreIdleSocketsThanTheInspectorHoldsStillLetAPageIn() throws {
        let (inspector, port, token) = try started()
        defer { inspector.stop() }
        let count = ConnectionInspector.maximumWaitingConnections * 2 + 44
        let idle = try (0..<count).map { _ in try Socket(port: port) }
        defer { idle.forEach { $0.close() } }
        let answer = try InspectorClient.send("GET", "/api/statistics?token=\(token)", port: port)
        #expect(answer.status == 200, "the page with the token is served beside \(count) idle sockets")
        let closed = idle.filter { !HostileWire.isOpen($0.fd) }.count
        #expect(closed >= count - ConnectionInspector.maximumWaitingConnections, "the oldest idle sockets were closed")
    }

    @Test func aHeadTrickledByteByByteIsCutOffAtTheRequestTimeout() async throws {
        let (inspector, port, _) = try started()
        defer { inspector.stop() }
        let slow = try Socket(port: port)
        defer { slow.close() }
        let fd = slow.fd
        let head = Array("GET /api/statistics HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Pad: ".utf8)
        // The trickle waits on the socket for seconds: on a thread of its own, not the test's pool thread.
        let (closed, elapsed) = await onOwnThread {
            let started = Date()
            var closed = false
            // One byte every 200 ms, for far longer than the timeout: each read is prompt, the head never ends.
            for index in 0..<400 where !closed {
                let byte = index < head.count ? head[index] : UInt8(ascii: "a")
                _ = withUnsafePointer(to: byte) { send(fd, $0, 1, HostileWire.noSignal) }
                closed = HostileWire.waitForClose(fd, seconds: 0.2)
            }
            return (closed, Date().timeIntervalSince(started))
        }
        #expect(closed, "the connection was closed")
        #expect(elapsed >= ConnectionInspector.requestTimeout - 0.5, "not before the timeout: \(elapsed) s")
        #expect(elapsed < ConnectionInspector.requestTimeout + 20, "at the timeout: \(elapsed) s")
    }

    @Test func aFloodOfEmptyLinesIsRefusedAtTheHeadBudget() throws {
        let (inspector, port, token) = try started()
        defer { inspector.stop() }
        // 256 KiB of CRLF, then a valid request: the empty lines alone exceed the head budget.
        var flood = Data(repeating: 0, count: 256 * 1024)
        for index in stride(from: 0, to: flood.count, by: 2) { (flood[index], flood[index + 1]) = (13, 10) }
        flood.append(Data("GET /api/statistics?token=\(token) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n".utf8))
        let answer = try HostileWire.exchange(flood, port: port)
        #expect(answer.hasPrefix("HTTP/1.1 431"), "refused, not parsed: \(answer.prefix(40))")
    }

    @Test func aFewEmptyLinesBeforeARequestAreStillTolerated() throws {
        let (inspector, port, token) = try started()
        defer { inspector.stop() }
        let request =
            "\r\n\r\nGET /api/statistics?token=\(token) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n"
        #expect(try HostileWire.exchange(Data(request.utf8), port: port).hasPrefix("HTTP/1.1 200"))
    }

    @Test func aMegabyteOfFoldedLinesIsRefusedPromptly() throws {
        let (inspector, port, token) = try started()
        defer { inspector.stop() }
        var head = "GET /api/statistics?token=\(token) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nX-Folded: a\r\n"
        head += String(repeating: " b\r\n", count: (1 << 20) / 4 - 100) + "\r\n"
        let started = Date()
        let answer = try HostileWire.exchange(Data(head.utf8), port: port)
        let elapsed = Date().timeIntervalSince(started)
        #expect(answer.hasPrefix("HTTP/1.1 431"), "over the head budget: \(answer.prefix(40))")
        // Parsing it whole took about 128 s; the budget refuses it after 64 KiB.
        #expect(elapsed < 30, "answered in \(elapsed) s")
    }

    @Test func foldedLinesWithinTheBudgetAreJoinedWithASpace() throws {
        let (inspector, port, token) = try started()
        defer { inspector.stop() }
        let head =
            "GET /api/statistics HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nX-Inspector-Token:\r\n \(token)\r\n"
            + "Connection: close\r\n\r\n"
        #expect(try HostileWire.exchange(Data(head.utf8), port: port).hasPrefix("HTTP/1.1 200"))
    }

    /// The reader the inspector shares with `TestServer`, which allows a 1 MiB head of any number of lines.
    @Test func theSharedReaderJoinsAMegabyteOfFoldedLinesInLinearTime() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/folded") { request in .text("\(request.header("X-Folded")?.count ?? -1)") }
        let lines = (1 << 20) / 4 - 100
        var head = "GET /folded HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nX-Folded: a\r\n"
        head += String(repeating: " b\r\n", count: lines) + "\r\n"
        let port = server.port
        // Seconds on the socket in a debug build: on a thread of its own, not the test's pool thread.
        let (answer, elapsed) = try await onOwnThread { [head] in
            let started = Date()
            let answer = try HostileWire.exchange(Data(head.utf8), port: port)
            return (answer, Date().timeIntervalSince(started))
        }
        #expect(answer.hasPrefix("HTTP/1.1 200"))
        #expect(answer.hasSuffix("\r\n\r\n\(1 + 2 * lines)"), "every folded line joined with one space")
        // Joining by copying the value per line took about 128 s; one pass takes milliseconds.
        #expect(elapsed < 30, "parsed in \(elapsed) s")
    }

    @Test func aHeadOverTheBudgetIsRefusedEvenWithTheToken() throws {
        let (inspector, port, token) = try started()
        defer { inspector.stop() }
        let big = String(repeating: "x", count: ConnectionInspector.maximumHeadBytes)
        let large = try InspectorClient.send(
            "GET", "/api/statistics?token=\(token)", port: port, headers: ["X-Big": big])
        #expect(large.status == 431, "a head over \(ConnectionInspector.maximumHeadBytes) bytes")
        var many: [String: String] = [:]
        for index in 0..<ConnectionInspector.maximumHeaderLines { many["X-Line-\(index)"] = "1" }
        let lines = try InspectorClient.send("GET", "/api/statistics?token=\(token)", port: port, headers: many)
        #expect(lines.status == 431, "more than \(ConnectionInspector.maximumHeaderLines) header lines")
        let fine = try InspectorClient.send("GET", "/api/statistics?token=\(token)", port: port)
        #expect(fine.status == 200)
    }

    @Test func eventStreamsBeyondTheLimitGet503() throws {
        let (inspector, port, token) = try started()
        defer { inspector.stop() }
        let request = Data("GET /api/events?token=\(token) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n".utf8)
        var streams: [Socket] = []
        defer { streams.forEach { $0.close() } }
        for _ in 0..<ConnectionInspector.maximumEventStreams {
            let stream = try Socket(port: port)
            streams.append(stream)
            try stream.write(request)
            #expect(String(decoding: stream.readSome(), as: UTF8.self).hasPrefix("HTTP/1.1 200"))
        }
        for extra in 1...2 {
            let answer = try HostileWire.exchange(request, port: port)
            #expect(answer.hasPrefix("HTTP/1.1 503"), "stream \(ConnectionInspector.maximumEventStreams + extra)")
        }
    }
}

/// Raw socket steps of these tests that `InspectorClient` does not cover.
enum HostileWire {
    /// Whether `fd` is still open: no EOF or reset is waiting on it.
    static func isOpen(_ fd: Int32) -> Bool {
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&descriptor, 1, 0) > 0 else { return true }
        var byte: UInt8 = 0
        return recv(fd, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT)) > 0
    }

    /// Waits up to `seconds` for the peer to close `fd` (discarding what it sends); whether it did.
    static func waitForClose(_ fd: Int32, seconds: TimeInterval) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0 else { return false }
            var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, Int32(remaining * 1000) + 1) > 0 else { return false }
            if recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT)) <= 0 { return true }
        }
    }

    /// `send` flags: no SIGPIPE when the inspector has closed first.
    static var noSignal: Int32 {
        #if canImport(Glibc)
            return Int32(MSG_NOSIGNAL)
        #else
            return 0
        #endif
    }

    /// Sends `bytes` from one thread while reading the answer on this one (the server may answer and
    /// close before it has read them all); returns what arrived before the close, as text.
    static func exchange(_ bytes: Data, port: Int) throws -> String {
        let socket = try Socket(port: port)
        let sent = DispatchSemaphore(value: 0)
        let fd = socket.fd
        let sender = Thread {
            defer { sent.signal() }
            bytes.withUnsafeBytes { buffer in
                guard let base = buffer.baseAddress else { return }
                var offset = 0
                while offset < buffer.count {
                    let count = send(fd, base + offset, buffer.count - offset, noSignal)
                    guard count > 0 else { return }
                    offset += count
                }
            }
        }
        sender.start()
        let answer = try socket.readToEnd(limit: 1 << 20)
        // The sender stops at the shutdown; the descriptor is closed only once it has.
        _ = shutdown(socket.fd, Int32(SHUT_RDWR))
        _ = sent.wait(timeout: .now() + 30)
        socket.close()
        return String(decoding: answer, as: UTF8.self)
    }
}
