// What users do with endpoints under Swift 6 strict concurrency, written as they would write it; every line
// compiles without a warning with the one annotation each endpoint class carries (docs/endpoints.md,
// "Why endpoints restate `@unchecked Sendable`").
import ConnectionKit
import Foundation

/// A screen's model: it keeps the running request so that it can cancel it.
@MainActor
final class EventsViewModel {
    private(set) var events: [Event] = []
    private var running: FetchEvents?
    let environment: SeedEnvironment

    init(environment: SeedEnvironment) {
        self.environment = environment
    }

    /// async style, from the main actor, with the request kept in a property.
    func load(page: Int) async throws {
        let request = FetchEvents(environment: environment, page: page)
        running = request
        defer { running = nil }
        events = try await request.value()
    }

    /// Callback style, handlers set before `start()`; they run on the main queue.
    func loadInBackground(page: Int, done: @escaping @MainActor @Sendable () -> Void) {
        let request = FetchEvents(environment: environment, page: page)
        running = request
        request.completionHandler = { [weak self] events in
            MainActor.assumeIsolated {
                self?.events = events
                done()
            }
        }
        request.failureHandler = { _ in
            MainActor.assumeIsolated { done() }
        }
        request.start()
    }

    /// Cancels whatever runs; its `load` throws `SeedError.cancelled`.
    func cancel() {
        running?.cancel()
    }
}

/// async style from a nonisolated async function.
func firstEventName(environment: SeedEnvironment) async throws -> String? {
    try await FetchEvents(environment: environment).value().first?.name
}

/// The registry from any thread: here a detached task.
func cancelEveryEventFetch() async -> Int {
    await Task.detached {
        let running = ConnectionRegistry.shared.requests(of: FetchEvents.self)
        ConnectionRegistry.shared.cancelAll(FetchEvents.self)
        return running.count
    }.value
}

/// A request handed to another thread, which cancels it.
func cancelFromAnotherQueue(_ request: FetchEvents, on queue: DispatchQueue) {
    queue.async { request.cancel() }
}
