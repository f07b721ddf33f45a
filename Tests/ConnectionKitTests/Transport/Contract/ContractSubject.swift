import ConnectionKitTesting
import Foundation
import Testing

@testable import ConnectionKit

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A transport the contract suite runs against: the scripted fake, URLSession, libcurl (Linux).
enum ContractSubject: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case scripted, urlSession, libcurl

    /// The subjects of this platform: libcurl on Linux only.
    static var all: [ContractSubject] {
        #if canImport(CCurlShim)
            allCases
        #else
            [.scripted, .urlSession]
        #endif
    }

    var testDescription: String { rawValue }

    /// Whether the transport reports metrics (contract point 7: "where the transport has them").
    /// URLSession on Linux never calls `didFinishCollecting` (docs/linux.md).
    var reportsMetrics: Bool {
        switch self {
        case .scripted, .libcurl: return true
        case .urlSession:
            #if canImport(FoundationNetworking)
                return false
            #else
                return true
            #endif
        }
    }

    /// Whether its transfers follow the receiver's demand (URLSession cannot pause on Linux, see `TransferHandle`).
    var canPause: Bool { self != .urlSession }

    /// The real transport, or `nil` for the scripted one.
    func realTransport() throws -> (any Transport)? {
        switch self {
        case .scripted: return nil
        case .urlSession: return URLSessionTransport.shared
        case .libcurl: return try ConnectionTransport.libcurl().implementation
        }
    }
}

/// One scenario of the contract, on one subject: a route of a `TestServer` for the real transports, a
/// script for the fake. Stops its server when released.
final class ContractFixture: Sendable {
    let transport: any Transport
    let url: URL
    let server: TestServer?

    /// `respond` answers `path` on a loopback `TestServer` (real transports); `script` is what the fake plays.
    init(
        _ subject: ContractSubject, path: String = "/contract", script: [ScriptedTransport.Step],
        canPause: Bool = true, respond: @escaping @Sendable (TestRequest) -> TestResponse
    ) throws {
        if let real = try subject.realTransport() {
            let server = try TestServer.started()
            server.route(path, respond)
            self.server = server
            transport = real
            url = server.url(path)
        } else {
            server = nil
            transport = ScriptedTransport(script, canPause: canPause)
            url = URL(string: "http://127.0.0.1:9\(path)")!
        }
    }

    deinit { server?.stop() }

    /// The scripted transport, when the subject is the fake.
    var scripted: ScriptedTransport? { transport as? ScriptedTransport }

    /// A GET of the fixture's URL with a generous idle timeout.
    var request: URLRequest {
        var request = URLRequest(url: url)
        request.timeoutInterval = 60
        return request
    }
}

extension ScriptedTransport.Step {
    /// `count` bytes of body in steps of `chunk` bytes.
    static func body(_ count: Int, chunk: Int = 16_384) -> [ScriptedTransport.Step] {
        stride(from: 0, to: count, by: chunk).map { .data(Data(repeating: 0x61, count: min(chunk, count - $0))) }
    }

    /// What libcurl reports for a plain loopback transfer.
    static var someMetrics: ScriptedTransport.Step {
        var metrics = TransferMetrics()
        metrics.totalDuration = 0.001
        metrics.remoteAddress = "127.0.0.1"
        return .metrics(metrics)
    }
}
