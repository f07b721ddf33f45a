import ConnectionKitTesting
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A loopback port that refuses connections (a bound socket that is not listening, so clients get
/// "connection refused" and no other socket can bind it) until ``startServer()`` hands it to a `TestServer`.
/// This is "the server is down" for the offline queue's tests, without the port being taken meanwhile.
final class PortReservation: Sendable {
    let port: Int
    private let descriptor: Locked<Int32>

    init() throws {
        // Close-on-exec from the start: a child process spawned meanwhile by a parallel test (the crash test's)
        // must not inherit the socket, or the port stays taken after `startServer` closes ours.
        #if canImport(Glibc)
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        #else
            let fd = socket(AF_INET, SOCK_STREAM, 0)
            if fd >= 0 { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        #endif
        guard fd >= 0 else { throw ReservationError(message: "socket failed: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr = in_addr(s_addr: inet_addr("127.0.0.1"))
        let bound = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard bound == 0, named == 0 else {
            close(fd)
            throw ReservationError(message: "bind failed: errno \(errno)")
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        descriptor = Locked(fd)
    }

    deinit {
        release()
    }

    /// `http://127.0.0.1:<port>`.
    var baseURL: URL {
        URL(string: "http://127.0.0.1:\(port)") ?? URL(fileURLWithPath: "/")
    }

    /// Frees the port and starts a server on it at once.
    func startServer(_ server: TestServer) throws {
        release()
        try server.start(port: port)
    }

    private func release() {
        let fd = descriptor.withLock { fd in
            defer { fd = -1 }
            return fd
        }
        if fd >= 0 { close(fd) }
    }
}

struct ReservationError: Error {
    let message: String
}
