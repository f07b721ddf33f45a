import ConnectionKit
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The things compared in every row. All use the same style: a completion callback per request,
/// started from the previous request's callback, counted under a lock.
enum Variant: String, Sendable, CaseIterable {
    /// URLSession as a careful user writes it: ephemeral, 64 connections per host (ConnectionKit's
    /// setting; Linux defaults to 6), `dataTask(with:completionHandler:)`.
    case raw
    /// ConnectionKit: a `BasicConnectionRequest` (or a subclass) with handlers on a private queue.
    case connectionKit = "ck"
    /// The same ConnectionKit requests on the libcurl transport (Linux; skipped where libcurl is unavailable).
    case libcurl = "curl"

    /// The variants this run measures: every one, minus libcurl where it cannot load; `BENCH_VARIANT=raw`,
    /// `ck` or `curl` measures one side only (for profiling it on its own).
    static let measured: [Variant] = {
        if let only = ProcessInfo.processInfo.environment["BENCH_VARIANT"].flatMap(Variant.init(rawValue:)) {
            return [only]
        }
        return allCases.filter { $0 != .libcurl || KitClient.libcurl != nil }
    }()

    /// The transport of ConnectionKit's requests in this variant (`nil` for raw URLSession).
    var transport: ConnectionTransport? {
        switch self {
        case .raw: return nil
        case .connectionKit: return .urlSession
        case .libcurl: return KitClient.libcurl
        }
    }
}

/// A `BasicConnectionRequest` on the transport of its variant.
final class BenchRequest: BasicConnectionRequest, @unchecked Sendable {
    // Safe: `chosen` is a `let`; the rest lives in the base class's locked storage.
    private let chosen: ConnectionTransport
    init(_ request: URLRequest, transport: ConnectionTransport) {
        chosen = transport
        super.init(request: request)
    }
    override var transport: ConnectionTransport { chosen }
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

    /// The libcurl transport, or `nil` (then the column stays empty) where it cannot load.
    static let libcurl: ConnectionTransport? = try? .libcurl()

    static func fetch(over transport: ConnectionTransport) -> Fetch {
        { url, done in
            let request = BenchRequest(URLRequest(url: url), transport: transport)
            request.callbackQueue = callbackQueue
            request.completionHandler = { data in done(.success(data.count)) }
            request.failureHandler = { error in done(.failure(error)) }
            request.start()
        }
    }
}

extension Variant {
    /// The fetch of this variant.
    var fetch: Fetch { transport.map(KitClient.fetch(over:)) ?? RawClient.fetch }

    /// The column header.
    var label: String {
        switch self {
        case .raw: return "raw URLSession"
        case .connectionKit: return "CK URLSession"
        case .libcurl: return "CK libcurl"
        }
    }
}
