import Foundation

#if canImport(Glibc)
    import Glibc

    /// A hostile HTTP/1.1 server on 127.0.0.1 that writes exactly the bytes a test scripts, when it
    /// scripts them (after a response, between lines): what `TestServer`, which answers correctly, cannot do.
    /// Every connection runs `script` on a thread of its own; the server closes all of them when released.
    final class RawLoopbackServer: Sendable {
        let port: Int
        private let listener: Int32
        private let state = Locked(State())

        private struct State {
            var open: [Int32] = []
            var connections = 0
            var stopped = false
        }

        /// One accepted connection, as its script sees it.
        struct Connection: Sendable {
            let descriptor: Int32
            /// Counts the server's connections from 1, in the order they were accepted.
            let number: Int

            /// Reads one request head (up to the blank line); `nil` at the end of the connection.
            func readHead() -> String? {
                var head = [UInt8]()
                var byte: UInt8 = 0
                while !head.ends(with: [13, 10, 13, 10]) {
                    guard recv(descriptor, &byte, 1, 0) == 1 else { return nil }
                    head.append(byte)
                }
                return String(decoding: head, as: UTF8.self)
            }

            /// The method and path of a request head.
            static func requestLine(of head: String) -> (method: String, path: String) {
                let parts = head.split(separator: " ", maxSplits: 2)
                return (parts.first.map(String.init) ?? "", parts.count > 1 ? String(parts[1]) : "")
            }

            /// Writes all of `text`; false once the client is gone.
            @discardableResult
            func write(_ text: String) -> Bool { write(Data(text.utf8)) }

            @discardableResult
            func write(_ data: Data) -> Bool {
                data.withUnsafeBytes { raw in
                    var offset = 0
                    while offset < raw.count {
                        let count = send(descriptor, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                        guard count > 0 else { return false }
                        offset += count
                    }
                    return true
                }
            }
        }

        init(script: @escaping @Sendable (Connection) -> Void) throws {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else { throw FixtureError(message: "socket failed: errno \(errno)") }
            var one: Int32 = 1
            _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr = in_addr(s_addr: inet_addr("127.0.0.1"))
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let ready = withUnsafeMutablePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 && listen(fd, 64) == 0
                }
            }
            guard ready else {
                close(fd)
                throw FixtureError(message: "bind or listen failed: errno \(errno)")
            }
            listener = fd
            port = Int(UInt16(bigEndian: address.sin_port))
            let thread = Thread { [state] in Self.acceptLoop(fd, state: state, script: script) }
            thread.start()
        }

        deinit {
            let open = state.withLock { state in
                state.stopped = true
                return state.open
            }
            // shutdown wakes the threads blocked in accept and recv; each closes its own descriptor.
            shutdown(listener, Int32(SHUT_RDWR))
            for descriptor in open { shutdown(descriptor, Int32(SHUT_RDWR)) }
        }

        /// The base URL of the server.
        var url: URL { URL(string: "http://127.0.0.1:\(port)")! }

        /// How many connections the server accepted.
        var connectionCount: Int { state.withLock { $0.connections } }

        private static func acceptLoop(
            _ listener: Int32, state: Locked<State>, script: @escaping @Sendable (Connection) -> Void
        ) {
            defer { close(listener) }
            while true {
                let descriptor = accept(listener, nil, nil)
                guard descriptor >= 0 else {
                    if errno == EINTR { continue }
                    return
                }
                let number: Int? = state.withLock { state in
                    guard !state.stopped else { return nil }
                    state.open.append(descriptor)
                    state.connections += 1
                    return state.connections
                }
                guard let number else {
                    close(descriptor)
                    return
                }
                _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
                let thread = Thread {
                    script(Connection(descriptor: descriptor, number: number))
                    state.withLock { $0.open.removeAll { $0 == descriptor } }
                    close(descriptor)
                }
                thread.start()
            }
        }
    }

    extension Array where Element == UInt8 {
        fileprivate func ends(with suffix: [UInt8]) -> Bool {
            count >= suffix.count && Array(self[(count - suffix.count)...]) == suffix
        }
    }
#endif
