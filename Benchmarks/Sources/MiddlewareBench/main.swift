// MiddlewareBench: what the pipeline's middleware cost per request on this machine.
//
//     swift run -c release --package-path Benchmarks MiddlewareBench [--requests N] [--rounds N]
//
// Rows, per transport (URLSession, and libcurl where it loads): N sequential `value()` GETs of a 1 KiB body
// from the in-process TestServer on a client with no middleware, with one pass-through middleware (each
// method implemented, doing nothing), and with four; and `answered` (a middleware answers, nothing is
// sent). The rounds of the rows alternate (A, B, C, A, B, C, …), so that a drift of the machine touches
// every row alike. Each row prints the median µs per request over --rounds rounds (default 5), every
// round, and its difference from the row without middleware.
import ConnectionKit
import ConnectionKitTesting
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

struct Options {
    var requests = 2_000
    var rounds = 5

    init(_ arguments: [String]) {
        var iterator = arguments.makeIterator()
        while let argument = iterator.next() {
            let value = iterator.next() ?? ""
            switch argument {
            case "--requests": requests = max(10, Int(value) ?? requests)
            case "--rounds": rounds = max(1, Int(value) ?? rounds)
            default:
                FileHandle.standardError.write(Data("unknown option \(argument)\n".utf8))
                exit(2)
            }
        }
    }
}

/// Implements every method and changes nothing: the cost of the calls themselves.
struct PassThrough: ConnectionMiddleware {
    func runStarted(_ request: AnyConnectionRequest) -> (any Sendable)? { nil }
    func prepare(_ request: inout URLRequest, context: MiddlewareContext) throws {}
    func answer(for request: URLRequest, context: MiddlewareContext) throws -> MiddlewareAnswer? { nil }
    func received(_ outcome: MiddlewareOutcome, context: MiddlewareContext) {}
    func retryDecision(
        for error: ConnectionError, attempt: Int, response: ConnectionResponse?, context: MiddlewareContext
    ) -> RetryDecision? { nil }
}

/// Answers every request with the same 1 KiB body.
struct AnswerAll: ConnectionMiddleware {
    let body = Data(repeating: 0x61, count: 1_024)
    func answer(for request: URLRequest, context: MiddlewareContext) throws -> MiddlewareAnswer? {
        MiddlewareAnswer(statusCode: 200, headerFields: [("Content-Type", "application/octet-stream")], body: body)
    }
}

func makeClient(
    _ transport: ConnectionClient.TransportChoice, _ label: String, _ middleware: [any ConnectionMiddleware]
)
    -> ConnectionClient
{
    ConnectionClient(transport: transport, label: label, middleware: middleware)
}

/// Microseconds per sequential `value()` of `url` on `client`.
func perRequest(_ client: ConnectionClient, _ url: URL, count: Int) async throws -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    for _ in 0..<count {
        _ = try await BasicConnectionRequest(request: URLRequest(url: url)).value(on: client)
    }
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1_000 / Double(count)
}

func run(_ transport: ConnectionClient.TransportChoice, name: String, server: TestServer, options: Options) async throws
{
    let url = server.url("/1k")
    let rows: [(String, ConnectionClient)] = [
        ("no middleware", makeClient(transport, "none", [])),
        ("1 pass-through", makeClient(transport, "one", [PassThrough()])),
        ("4 pass-through", makeClient(transport, "four", Array(repeating: PassThrough(), count: 4))),
        ("answered (nothing sent)", makeClient(transport, "answered", [AnswerAll()])),
    ]
    for (_, client) in rows { _ = try await perRequest(client, url, count: 50) }
    var rounds = Array(repeating: [Double](), count: rows.count)
    for _ in 0..<options.rounds {
        for (index, row) in rows.enumerated() {
            rounds[index].append(try await perRequest(row.1, url, count: options.requests))
        }
    }
    let medians = rounds.map { $0.sorted()[$0.count / 2] }
    for (index, row) in rows.enumerated() {
        let each = rounds[index].map { String(format: "%.1f", $0) }.joined(separator: " ")
        let delta = index == 0 ? "" : String(format: "  (%+.1f µs)", medians[index] - medians[0])
        print(String(format: "%@ %-24@ %8.1f µs/request%@   [%@]", name, row.0, medians[index], delta, each))
    }
    for (_, client) in rows { await client.shutdown() }
}

let options = Options(Array(CommandLine.arguments.dropFirst()))
let server = try TestServer.started()
server.route("/1k") { _ in TestResponse(body: .data(Data(repeating: 0x61, count: 1_024))) }
print("MiddlewareBench: \(options.requests) sequential GETs per round, \(options.rounds) rounds, medians")
try await run(.urlSession, name: "URLSession", server: server, options: options)
if let probe = try? ConnectionClient(checking: .libcurl(), label: "probe") {
    await probe.shutdown()
    try await run(.libcurl(), name: "libcurl   ", server: server, options: options)
}
server.stop()
