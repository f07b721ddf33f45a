import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A listener in the attacker's process that treats connections as the inspector's gate does (a head of
/// at most 64 KiB and 100 lines within 10 s, then an answer or a close, on threads at nice +10). Aimed at it, the same attack loads
/// the machine as much without touching the app's process: the app's latency then is the noise the attack
/// itself causes on a two-core machine, and what the inspector adds is the difference from it.
enum Decoy {
    /// Starts the listener on a free loopback port; returns the port, or `nil` when it cannot listen.
    static func start() -> Int? {
        #if canImport(Glibc)
            let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            let listener = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard listener >= 0 else { return nil }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr = in_addr(s_addr: inet_addr("127.0.0.1"))
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, length) == 0 && listen(listener, 2_048) == 0
                    && getsockname(listener, $0, &length) == 0
            }
        }
        guard bound else {
            close(listener)
            return nil
        }
        Thread.detachNewThread {
            yieldToTheApp()
            while true {
                let fd = accept(listener, nil, nil)
                guard fd >= 0 else { continue }
                Thread.detachNewThread { serve(fd) }
            }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Reads a head with the inspector's limits, answers a complete one with 401, and closes.
    private static func serve(_ fd: Int32) {
        yieldToTheApp()
        defer { close(fd) }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var head: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16_384)
        var lines = 0
        while head.count < 65_536, lines <= 100 {
            let count = recv(fd, &chunk, chunk.count, 0)
            guard count > 0 else { return }
            lines += chunk[0..<count].filter { $0 == 10 }.count
            head += chunk[0..<count]
            if head.count >= 4, head.suffix(4).elementsEqual([13, 10, 13, 10]) {
                _ = sendAll(
                    fd, Array("HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8))
                return
            }
        }
    }

    /// Lowers the calling thread's priority as the inspector's threads do (on Linux, per thread).
    private static func yieldToTheApp() {
        #if canImport(Glibc)
            _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 10)
        #endif
    }
}
