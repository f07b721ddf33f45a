import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// URLSession helpers for tests: an ephemeral session with a generous per-host connection limit.
enum HTTPClient {
    static func makeSession() -> URLSession {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = 16
        configuration.timeoutIntervalForRequest = 10
        return URLSession(configuration: configuration)
    }

    /// Performs `request` on a fresh ephemeral session and returns body and response.
    static func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        let session = makeSession()
        defer { session.finishTasksAndInvalidate() }
        let (data, response) = try await session.data(for: request)
        guard let http = response as? HTTPURLResponse else { throw TestError("not an HTTP response") }
        return (data, http)
    }

    static func get(_ url: URL) async throws -> (Data, HTTPURLResponse) {
        try await send(URLRequest(url: url))
    }
}
