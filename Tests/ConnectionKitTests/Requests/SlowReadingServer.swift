import Foundation

@testable import ConnectionKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A loopback server that accepts one connection and reads it at a fixed pace (`bytesPerSecond`, in ten slices a
/// second) through a small receive buffer, never answering: a slow server for upload backpressure tests.
final class SlowReadingServer: Sendable {
    /// The receive buffer asked for the accepted socket (the kernel doubles it).
    static let receiveBuffer: Int32 = 64 * 1024

    let port: Int
    private let listener: Int32
    private let state = Locked(State())

    private struct State {
        var received: Int64 = 0
        var stopped = false
        var connection: Int32 = -1
    }

    init(bytesPerSecond: Int) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw FixtureError(message: "socket failed: errno \(errno)") }
        var size = Self.receiveBuffer
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
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
        guard bound == 0, named == 0, listen(fd, 4) == 0 else {
            close(fd)
            throw FixtureError(message: "bind or listen failed: errno \(errno)")
        }
        listener = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        let thread = Thread { [self] in serve(bytesPerSecond: bytesPerSecond) }
        thread.start()
    }

    /// Bytes read from the connection so far (the request head included).
    var received: Int64 { state.withLock { $0.received } }

    var url: URL { URL(string: "http://127.0.0.1:\(port)/slow")! }

    /// Stops reading and closes the sockets.
    func stop() {
        let connection = state.withLock { state in
            state.stopped = true
            defer { state.connection = -1 }
            return state.connection
        }
        if connection >= 0 { shutdown(connection, Int32(SHUT_RDWR)) }
        shutdown(listener, Int32(SHUT_RDWR))
    }

    deinit {
        close(listener)
    }

    private func serve(bytesPerSecond: Int) {
        let connection = accept(listener, nil, nil)
        guard connection >= 0 else { return }
        defer { close(connection) }
        let keep = state.withLock { state in
            state.connection = connection
            return !state.stopped
        }
        guard keep else { return }
        let slice = max(1, bytesPerSecond / 10)
        var buffer = [UInt8](repeating: 0, count: slice)
        while !state.withLock({ $0.stopped }) {
            let count = recv(connection, &buffer, slice, 0)
            guard count > 0 else { return }
            state.withLock { $0.received += Int64(count) }
            // The server's pace: one slice every tenth of a second.
            usleep(100_000)
        }
    }
}
