import ConnectionKit
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The two things compared in every row. Both use the same style: a completion callback per request,
/// started from the previous request's callback, counted under a lock.
enum Variant: String, Sendable, CaseIterable {
    /// URLSession as a careful user writes it: ephemeral, 64 connections per host (ConnectionKit's
    /// setting; Linux defaults to 6), `dataTask(with:completionHandler:)`.
    case raw
    /// ConnectionKit: a `BasicConnectionRequest` (or a subclass) with handlers on a private queue.
    case connectionKit = "ck"
}

/// A fetch that calls `done` once, with the body's size (or the error).
typealias Fetch = @Sendable (_ url: URL, _ done: @escaping @Sendable (Result<Int, any Error>) -> Void) -> Void

/// The raw URLSession side.
enum RawClient {
    /// One session for the process, as ConnectionKit has; its completion handlers run on its own serial
    /// delegate queue (URLSession creates one when given none).
    static let session: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = 64
        return URLSession(configuration: configuration)
    }()

    static let fetch: Fetch = { url, done in
        session.dataTask(with: url) { data, response, error in
            if let error {
                done(.failure(error))
            } else if let response = response as? HTTPURLResponse, (200..<300).contains(response.statusCode) {
                done(.success(data?.count ?? 0))
            } else {
                done(.failure(BenchmarkError("unexpected response \(String(describing: response))")))
            }
        }.resume()
    }
}

/// The ConnectionKit side.
enum KitClient {
    /// Where every ConnectionKit handler runs: a private serial queue (a command-line tool has no main run loop).
    static let callbackQueue = DispatchQueue(label: "ConnectionKitBenchmarks.callbacks")

    static let fetch: Fetch = { url, done in
        let request = BasicConnectionRequest(request: URLRequest(url: url))
        request.callbackQueue = callbackQueue
        request.completionHandler = { data in done(.success(data.count)) }
        request.failureHandler = { error in done(.failure(error)) }
        request.start()
    }
}

extension Variant {
    /// The fetch of this variant.
    var fetch: Fetch { self == .raw ? RawClient.fetch : KitClient.fetch }

    /// The column header.
    var label: String { self == .raw ? "raw URLSession" : "ConnectionKit" }
}
