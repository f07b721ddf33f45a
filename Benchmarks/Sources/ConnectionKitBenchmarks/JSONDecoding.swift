import ConnectionKit
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// 1 MiB JSON arrays fetched and decoded into `[Item]`: raw `JSONDecoder` on the data a URLSession
/// completion handler got, against a `JSONConnectionRequest<[Item]>` (which decodes off the callback queue).
enum JSONDecoding: Benchmark {
    static let name = "json"

    /// The endpoint, as an app declares it.
    final class FetchItems: JSONConnectionRequest<[ServedFiles.Item]>, @unchecked Sendable {
        // Safe: no stored state of its own.
        private let endpoint: URL

        private let chosen: ConnectionTransport

        init(endpoint: URL, transport: ConnectionTransport) {
            self.endpoint = endpoint
            self.chosen = transport
            super.init()
        }

        override var url: URL? { endpoint }
        override var transport: ConnectionTransport { chosen }
    }

    static let rawFetch: Fetch = { url, done in
        RawClient.session.dataTask(with: url) { data, _, error in
            guard let data, error == nil else {
                done(.failure(error ?? BenchmarkError("no data")))
                return
            }
            do {
                let items = try JSONDecoder().decode([ServedFiles.Item].self, from: data)
                done(
                    items.count == ServedFiles.jsonItemCount ? .success(items.count) : .failure(BenchmarkError("short"))
                )
            } catch {
                done(.failure(error))
            }
        }.resume()
    }

    static func kitFetch(over transport: ConnectionTransport) -> Fetch {
        { url, done in kitFetch(url, transport: transport, done: done) }
    }

    private static func kitFetch(
        _ url: URL, transport: ConnectionTransport, done: @escaping @Sendable (Result<Int, any Error>) -> Void
    ) {
        let request = FetchItems(endpoint: url, transport: transport)
        request.callbackQueue = KitClient.callbackQueue
        request.completionHandler = { items in
            done(items.count == ServedFiles.jsonItemCount ? .success(items.count) : .failure(BenchmarkError("short")))
        }
        request.failureHandler = { error in done(.failure(error)) }
        request.start()
    }

    static func run(_ options: Options) throws -> [Row] {
        let count = options.quick ? 4 : 20
        let url = try options.url(ServedFiles.json)
        let figures = try Driver.alternate(rounds: options.rounds) { variant in
            try Driver.run(count: count, window: 1, url: url, fetch: variant.transport.map(kitFetch(over:)) ?? rawFetch)
                .requestsPerSecond
        }
        var row = Row(
            "1 MiB JSON GET + decode, sequential (\(count))", unit: "req/s", raw: figures.raw,
            connectionKit: figures.connectionKit, goal: .ratioAtLeast(0.95))
        row.libcurl = figures.libcurl
        return [row]
    }
}
