import ConnectionKitTesting
import Foundation

/// The Tag Along API, served in-process on loopback so the sample runs on any machine without internet.
///
/// - `GET events.json`: the events, `max-age=0` with an `ETag` (a `304` to a matching `If-None-Match`).
/// - `POST session.json` with Basic `ada:lovelace`: `{"token": ...}`; anything else 401 (the same
///   answer for a wrong name and a wrong password).
/// - `POST microposts.json` / `GET microposts.json`, with the token as the Basic user name.
/// - `GET attachments/flyer.pdf`: 256 KiB, sent in slow chunks so that progress shows.
final class DemoServer: Sendable {
    static let user = "ada"
    static let password = "lovelace"
    static let token = "demo-token-7f3a"
    static let flyer = TestBody.generatedBytes(length: 256 * 1024, seed: 42)

    static let events = [
        Event(id: 1, name: "Climbing at the quarry", date: "2026-12-05"),
        Event(id: 2, name: "Cinema: The Conversation", date: "2026-12-06"),
        Event(id: 3, name: "Board games night", date: "2026-12-09"),
    ]

    /// The events list's entity tag: the list never changes while the demo runs.
    static let eventsTag = "\"events-v1\""

    let server = TestServer()
    private let microposts = Mutex<[Micropost]>([])

    /// Starts on a port the OS picks.
    static func started() throws -> DemoServer {
        let demo = DemoServer()
        demo.addRoutes()
        try demo.server.start()
        return demo
    }

    var baseURL: URL { server.baseURL }

    /// The port it listens on (0 before the first start).
    var port: Int { server.port }

    func stop() { server.stop() }

    /// Starts again after ``stop()`` on the same port, so that clients configured while it was down (the
    /// offline queue's stored URLs) reach it again. Routes and microposts are kept.
    func restart(onPort port: Int) throws {
        try server.start(port: port)
    }

    /// What the live feed says, in order.
    private static let checkIns = (1...50).map { number in
        "\(["ada", "grace", "alan", "edsger", "barbara"][number % 5]) tags along to \(events[number % events.count].name)"
    }

    private func addRoutes() {
        let microposts = self.microposts
        // Stale at once (`max-age=0`) with an ETag: a read revalidates (a `304` when nothing changed), and
        // with the server down an offline-first read answers from the stored list.
        server.route("GET", "/events.json") { request in
            if request.header("If-None-Match") == Self.eventsTag { return .status(304) }
            var response = TestResponse.json(Self.events)
            response.headers.append(TestHeader("Cache-Control", "max-age=0"))
            response.headers.append(TestHeader("ETag", Self.eventsTag))
            return response
        }
        // The live feed: a check-in every 0.2 s; the connection drops after every three, and the
        // feed resumes after the Last-Event-ID the app sends back.
        server.route("GET", "/live") { request in
            .resumableEventStream(Self.checkIns, answering: request, perConnection: 3, interval: 0.2, retry: 100)
        }

        server.route("POST", "/session.json") { request in
            guard request.header("Authorization") == Self.basic("\(Self.user):\(Self.password)") else {
                return .json(["error": "invalid credentials"], status: 401)
            }
            return .json(SessionToken(token: Self.token))
        }

        server.route("POST", "/microposts.json") { request in
            guard request.header("Authorization") == Self.basic("\(Self.token):") else {
                return .json(["error": "not logged in"], status: 401)
            }
            guard let post = try? JSONDecoder().decode(Micropost.self, from: request.body) else {
                return .json(["error": "not a micropost"], status: 422)
            }
            let saved = microposts.update { posts in
                let saved = Micropost(id: posts.count + 1, text: post.text)
                posts.append(saved)
                return saved
            }
            return .json(saved, status: 201)
        }

        server.route("GET", "/microposts.json") { _ in .json(microposts.value) }

        server.route("GET", "/attachments/flyer.pdf") { _ in
            TestResponse(
                headers: [TestHeader("Content-Type", "application/pdf")],
                body: .drip(Self.flyer, chunkSize: 16 * 1024, interval: 0.05))
        }
    }

    private static func basic(_ credentials: String) -> String {
        "Basic " + Data(credentials.utf8).base64EncodedString()
    }
}
