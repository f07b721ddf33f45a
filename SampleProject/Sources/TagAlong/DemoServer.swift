import ConnectionKitTesting
import Foundation

/// The Tag Along API, served in-process on loopback so the sample runs on any machine without internet.
enum DemoServer {
    static let events = [
        Event(id: 1, name: "Climbing at the quarry", date: "2026-12-05"),
        Event(id: 2, name: "Cinema: The Conversation", date: "2026-12-06"),
        Event(id: 3, name: "Board games night", date: "2026-12-09"),
    ]

    static func start() throws -> TestServer {
        let server = try TestServer.started()
        server.route("GET", "/events.json") { _ in .json(events) }
        return server
    }
}
