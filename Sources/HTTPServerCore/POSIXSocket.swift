#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Thin wrappers over the POSIX socket calls the server needs, hiding the Glibc/Darwin spelling differences.
package enum POSIXSocket {
    // MARK: - Constants

    /// Listen backlog: enough for bursts of 64+ simultaneous connects.
    package static let listenBacklog: Int32 = 256

    /// Flags for `send`: on Linux `MSG_NOSIGNAL`, so a vanished client never raises SIGPIPE.
    package static var sendFlags: Int32 {
        #if canImport(Glibc)
            return Int32(MSG_NOSIGNAL)
        #else
            return 0
        #endif
    }

    // MARK: - Listener

    /// Opens a non-blocking TCP listener on 127.0.0.1 on `port` (0: the OS picks one); returns its descriptor and
    /// port.
    package static func openLoopbackListener(port: Int = 0) throws -> (fd: Int32, port: Int) {
        #if canImport(Glibc)
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw SocketFailure(operation: "socket", errno: errno) }
        do {
            setCloseOnExec(fd)
            var yes: Int32 = 1
            _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))

            var address = sockaddr_in()
            #if canImport(Darwin)
                address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
            #endif
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(clamping: port)).bigEndian
            address.sin_addr = in_addr(s_addr: inet_addr("127.0.0.1"))
            let bound = withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { rebound in
                    bind(fd, rebound, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard bound == 0 else { throw SocketFailure(operation: "bind", errno: errno) }
            guard listen(fd, listenBacklog) == 0 else {
                throw SocketFailure(operation: "listen", errno: errno)
            }
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let named = withUnsafeMutablePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { rebound in
                    getsockname(fd, rebound, &length)
                }
            }
            guard named == 0 else { throw SocketFailure(operation: "getsockname", errno: errno) }
            setNonBlocking(fd)
            return (fd, Int(UInt16(bigEndian: address.sin_port)))
        } catch {
            close(fd)
            throw error
        }
    }

    /// Accepts one pending connection and prepares it (non-blocking, close-on-exec, no SIGPIPE, no Nagle);
    /// `nil` when nothing was pending or the attempt failed.
    package static func acceptConnection(from listenFD: Int32) -> Int32? {
        let fd = accept(listenFD, nil, nil)
        guard fd >= 0 else { return nil }
        setCloseOnExec(fd)
        setNonBlocking(fd)
        var yes: Int32 = 1
        #if canImport(Darwin)
            _ = setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &yes, socklen_t(MemoryLayout<Int32>.size))
        #endif
        _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &yes, socklen_t(MemoryLayout<Int32>.size))
        return fd
    }

    // MARK: - Descriptor flags

    /// Marks `fd` close-on-exec so child processes started by tests never inherit server sockets.
    package static func setCloseOnExec(_ fd: Int32) {
        let flags = fcntl(fd, F_GETFD)
        if flags >= 0 { _ = fcntl(fd, F_SETFD, flags | FD_CLOEXEC) }
    }

    /// Puts `fd` in non-blocking mode; every wait goes through `poll` together with the wake pipe instead.
    package static func setNonBlocking(_ fd: Int32) {
        let flags = fcntl(fd, F_GETFL)
        if flags >= 0 { _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK) }
    }

    // MARK: - Closing

    /// Closes `fd` gracefully: a FIN after everything already queued.
    package static func closeGracefully(_ fd: Int32) {
        _ = shutdown(fd, Int32(SHUT_WR))
        close(fd)
    }

    /// Closes `fd` with `SO_LINGER` 0, which makes the kernel send a TCP reset instead of a FIN.
    package static func closeWithReset(_ fd: Int32) {
        var abortive = linger(l_onoff: 1, l_linger: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_LINGER, &abortive, socklen_t(MemoryLayout<linger>.size))
        close(fd)
    }
}
