import ConnectionKit
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A GET whose class decides its TLS configuration and its transport: libcurl unless told otherwise,
/// explicitly, so the TLS tests do not depend on `CONNECTIONKIT_TEST_TRANSPORT`.
final class TLSProbe: ConnectionRequest<Data>, @unchecked Sendable {
    // Safe: only immutable stored properties.
    let target: URL
    let configuration: TLSConfiguration
    let overURLSession: Bool
    let debug: Bool
    let policy: RetryPolicy

    init(
        _ target: URL, tls: TLSConfiguration = .default, overURLSession: Bool = false, debug: Bool = false,
        retryPolicy: RetryPolicy = .none
    ) {
        self.target = target
        self.configuration = tls
        self.overURLSession = overURLSession
        self.debug = debug
        self.policy = retryPolicy
    }

    /// Every retry decision taken, as "retry" or "do not retry".
    let retryDecisions = Locked<[String]>([])

    override var url: URL? { target }
    override var tls: TLSConfiguration { configuration }
    override var timeoutInterval: TimeInterval { 30 }
    override var isDebugOutputEnabled: Bool? { debug ? true : nil }
    override var retryPolicy: RetryPolicy { policy }
    override var transport: ConnectionTransport {
        // Never URLSession in libcurl's place: without libcurl, `makeURLRequest()` fails the request.
        overURLSession ? .urlSession : ((try? .libcurl()) ?? .urlSession)
    }

    /// Fails the request, naming why, when libcurl cannot load: a test of libcurl must not pass on URLSession.
    override func makeURLRequest() throws -> URLRequest {
        if !overURLSession { _ = try ConnectionTransport.libcurl() }
        return try super.makeURLRequest()
    }

    override func retryDecision(for error: ConnectionError, attempt: Int, response: ConnectionResponse?)
        -> RetryDecision
    {
        let decision = super.retryDecision(for: error, attempt: attempt, response: response)
        if case .retry = decision {
            retryDecisions.withLock { $0.append("retry") }
        } else {
            retryDecisions.withLock { $0.append("do not retry") }
        }
        return decision
    }

    /// The body as text, or the error the request ended with.
    static func outcome(_ request: TLSProbe) async -> Result<String, ConnectionError> {
        do {
            return .success(String(decoding: try await request.value(), as: UTF8.self))
        } catch let error as ConnectionError {
            return .failure(error)
        } catch {
            return .failure(ConnectionError(.other(underlying: error)))
        }
    }
}

extension Result where Success == String, Failure == ConnectionError {
    /// The TLS failure, when the request ended with one.
    var tlsFailure: TLSFailure? {
        guard case .failure(let error) = self, let failure = error.tlsFailure else { return nil }
        return failure
    }

    /// The body, when the request succeeded.
    var body: String? {
        guard case .success(let body) = self else { return nil }
        return body
    }
}
