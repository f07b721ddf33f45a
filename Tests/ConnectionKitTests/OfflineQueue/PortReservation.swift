import ConnectionKitTesting
import Foundation

/// A loopback port that refuses connections (a bound socket that is not listening, so clients get
/// "connection refused" and no other socket can bind it) until ``startServer()`` hands it to a `TestServer`.
/// This is "the server is down" for the offline queue's tests, without the port being taken meanwhile.
final class PortReservation: Sendable {
    /// The bound, not listening socket that holds the port.
    private let reserved: LoopbackPort

    /// The reserved port.
    var port: Int { reserved.port }

    init() throws {
        reserved = try LoopbackPort(reusable: false)
    }

    var baseURL: URL {
        URL(string: "http://127.0.0.1:\(port)") ?? URL(fileURLWithPath: "/")
    }

    /// Frees the port and starts a server on it at once.
    func startServer(_ server: TestServer) throws {
        reserved.release()
        try server.start(port: port)
    }
}
