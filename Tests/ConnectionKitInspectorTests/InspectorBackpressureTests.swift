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

/// A page that follows the events but never reads them slows neither requests nor the inspector.
@Suite(.timeLimit(.minutes(1))) struct InspectorBackpressureTests {
    @Test func aStuckEventStreamBlocksNoRequestAndNoOtherPage() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/item") { _ in .text(String(repeating: "x", count: 512)) }
        let inspector = ConnectionInspector()
        let url = try inspector.start()
        defer { inspector.stop() }
        let port = url.port ?? 0
        let token = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first?.value ?? ""

        // A tiny receive buffer, never read: the inspector's writes to it soon block.
        let stuck = try Socket(port: port)
        defer { stuck.close() }
        var small: Int32 = 1024
        _ = setsockopt(stuck.fd, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size))
        try stuck.write(Data("GET /api/events?token=\(token) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n".utf8))
        // The page's stream was accepted: the inspector subscribed it (it writes `retry:` only then),
        // so the requests below really are published to a page that stops reading here.
        var opening = ""
        for _ in 0..<5 where !opening.contains("retry: 1000") {
            opening += String(decoding: stuck.readSome(), as: UTF8.self)
        }
        #expect(opening.hasPrefix("HTTP/1.1 200"), "the event stream was accepted: \(opening.prefix(200))")
        #expect(opening.contains("retry: 1000"), "the page was subscribed to the events")

        let count = 400
        // Waits off Swift's cooperative pool (which the inspector's event pump needs to run).
        let endings = EndingRecorder()
        let requests = (0..<count).map { _ in BackpressureProbe(server.url("/item")) }
        for request in requests { endings.track(request, queue: testCallbackQueue) }
        let started = Date()
        requests.forEach { $0.start() }
        #expect(await endings.ended(within: 40), "every request ended while the page was stuck")
        let seconds = Date().timeIntervalSince(started)
        #expect(seconds < 40)
        let other = try InspectorClient.send("GET", "/api/statistics?token=\(token)", port: port)
        #expect(other.status == 200, "another page is still served")
        #expect(other.text.contains("BackpressureProbe"))
        // Only now read the stuck page: the requests' events were published to it (it was subscribed).
        var backlog = ""
        for _ in 0..<5 where !backlog.contains("data: ") && !backlog.contains("event: resync") {
            backlog += String(decoding: stuck.readSome(), as: UTF8.self)
        }
        #expect(
            backlog.contains("data: ") || backlog.contains("event: resync"),
            "the stuck page had events queued: \(backlog.count) bytes: \(backlog.prefix(300))")
    }
}

final class BackpressureProbe: ConnectionRequest<Data>, @unchecked Sendable {
    // Safe: `target` is a `let` set in init.
    let target: URL
    init(_ target: URL) { self.target = target }
    override var url: URL? { target }
}
