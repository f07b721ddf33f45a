import Foundation

@testable import ConnectionKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A loopback HTTP/1.1 server for one exchange that answers at once and echoes its request body line by line
/// while the body is still arriving: it sends its response head as soon as the request head is read, then, for
/// every line of the (chunked) body, a chunk `echo: <line>\n`, and ends its answer when the body ends. A server
/// for full duplex: a client sees each reply before it sends the next line.
final class EchoLineServer: Sendable {
    let port: Int
    private let listener: Int32

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw FixtureError(message: "socket failed: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr = in_addr(s_addr: inet_addr("127.0.0.1"))
        let size = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, size) }
        }
        var length = size
        let named = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard bound == 0, named == 0, listen(fd, 4) == 0 else {
            close(fd)
            throw FixtureError(message: "bind or listen failed: errno \(errno)")
        }
        listener = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        Thread { [self] in serve() }.start()
    }

    var url: URL { URL(string: "http://127.0.0.1:\(port)/echo")! }

    /// Stops accepting (an exchange in progress ends when its client closes).
    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
    }

    deinit {
        close(listener)
    }

    private func serve() {
        let connection = accept(listener, nil, nil)
        guard connection >= 0 else { return }
        defer { close(connection) }
        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        func receive() -> Bool {
            let count = recv(connection, &buffer, buffer.count, 0)
            guard count > 0 else { return false }
            pending += buffer[0..<count]
            return true
        }
        func write(_ text: String) {
            let bytes = Array(text.utf8)
            _ = bytes.withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        }
        /// The next CRLF-ended line of `pending`, without its CRLF, once it is there.
        func line() -> String? {
            while true {
                let crlf = pending.indices.dropLast().first { pending[$0] == 0x0D && pending[$0 + 1] == 0x0A }
                if let end = crlf {
                    defer { pending.removeFirst(end + 2) }
                    return String(decoding: pending[..<end], as: UTF8.self)
                }
                guard receive() else { return nil }
            }
        }
        // The request head, answered at once.
        while let field = line(), !field.isEmpty {}
        write("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n")
        var text: [UInt8] = []
        while let sizeLine = line(), let size = Int(sizeLine.prefix { $0 != ";" }, radix: 16), size > 0 {
            while pending.count < size + 2 {
                guard receive() else { return }
            }
            text += pending[0..<size]
            pending.removeFirst(size + 2)
            while let newline = text.firstIndex(of: 0x0A) {
                let reply = "echo: " + String(decoding: text[..<newline], as: UTF8.self) + "\n"
                text.removeFirst(newline + 1)
                write(String(reply.utf8.count, radix: 16) + "\r\n" + reply + "\r\n")
            }
        }
        write("0\r\n\r\n")
    }
}
