// The README's first endpoint, as a user writes it in their own module. It sits in a namespace only so that
// its `Event` and `FetchEvents` do not collide with the app superclass example's (SeedClient.swift) in this
// one module (so `showEvents` is `static`); nesting has no bearing on the Sendable checks.
import ConnectionKit
import Foundation

enum ReadmeExample {
    struct Event: Decodable, Sendable {
        let id: Int
        let name: String
    }

    final class FetchEvents: JSONConnectionRequest<[Event]>, @unchecked Sendable {
        override var url: URL? { URL(string: "https://api.example.com/events.json") }
    }

    static func showEvents() async throws {
        // async style
        let events = try await FetchEvents().value()
        print(events.map(\.name))

        // callback style (the original's): handlers run on `callbackQueue`, the main queue by default
        let request = FetchEvents()
        request.completionHandler = { events in print(events.count) }
        request.failureHandler = { error in print(error.localizedDescription) }
        request.start()  // the registry keeps it alive until it ends
    }
}
