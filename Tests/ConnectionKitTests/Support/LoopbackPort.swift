import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A loopback port chosen by the OS and held by a bound socket, so that no other test takes it before
/// the server that is meant to (`PortReservation` is one, for the offline queue's tests). The socket is
/// close-on-exec, so a child process spawned meanwhile by a parallel test does not keep the port.
///
/// `reusable` sets `SO_REUSEPORT`, so that a server that sets it too (nginx's `reuseport`) can listen
/// while the reservation still holds the port. `listening` makes the socket listen, so that a test
/// can tell whether anyone connected (``hasPendingConnection``).
final class LoopbackPort: Sendable {
    let port: Int
    private let descriptor: Mutex<Int32>

    init(reusable: Bool, listening: Bool = false) throws {
        #if canImport(Glibc)
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        #else
            let fd = socket(AF_INET, SOCK_STREAM, 0)
            if fd >= 0 { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        #endif
        guard fd >= 0 else { throw FixtureError(message: "socket failed: errno \(errno)") }
        var one: Int32 = 1
        if reusable {
            _ = setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, socklen_t(MemoryLayout<Int32>.size))
        }
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
        guard bound == 0, named == 0, !listening || listen(fd, 16) == 0 else {
            close(fd)
            throw FixtureError(message: "bind or listen failed: errno \(errno)")
        }
        if listening { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
        port = Int(UInt16(bigEndian: address.sin_port))
        descriptor = Mutex(fd)
    }

    deinit {
        release()
    }

    /// Whether a client connected to a `listening` port (accepting and closing it).
    var hasPendingConnection: Bool {
        descriptor.withLock { fd in
            let client = accept(fd, nil, nil)
            guard client >= 0 else { return false }
            close(client)
            return true
        }
    }

    /// Frees the port.
    func release() {
        let fd = descriptor.withLock { fd in
            defer { fd = -1 }
            return fd
        }
        if fd >= 0 { close(fd) }
    }

    /// Whether something accepts TCP connections on 127.0.0.1:`port`.
    static func accepts(_ port: Int) -> Bool {
        #if canImport(Glibc)
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        #else
            let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr = in_addr(s_addr: inet_addr("127.0.0.1"))
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }
}
