import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Raw HTTP/1.1 exchanges with the inspector over a plain socket, so that a test controls every
/// header (URLSession would set `Host` itself and refuse some).
enum InspectorClient {
    struct Answer {
        var status: Int
        var headers: [String: String]
        var body: Data
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    /// Sends `method path` with `headers` (a `Host` naming 127.0.0.1 and the port unless given)
    /// and reads the answer (closing the connection after it).
    static func send(
        _ method: String, _ path: String, port: Int, headers: [String: String] = [:]
    ) throws -> Answer {
        var all = ["Host": "127.0.0.1:\(port)", "Connection": "close"]
        all.merge(headers) { $1 }
        var head = "\(method) \(path) HTTP/1.1\r\n"
        for (name, value) in all { head += "\(name): \(value)\r\n" }
        if method == "POST" { head += "Content-Length: 0\r\n" }
        head += "\r\n"
        let stream = try Socket(port: port)
        defer { stream.close() }
        try stream.write(Data(head.utf8))
        let data = try stream.readToEnd()
        guard let split = data.range(of: Data("\r\n\r\n".utf8)) else { throw URLError(.badServerResponse) }
        let lines = String(decoding: data[..<split.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        let status = Int(lines.first?.split(separator: " ").dropFirst().first ?? "") ?? 0
        var fields: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return Answer(status: status, headers: fields, body: Data(data[split.upperBound...]))
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A blocking TCP client socket to 127.0.0.1 with a 10 s receive timeout.
final class Socket {
    let fd: Int32

    init(port: Int) throws {
        #if canImport(Glibc)
            fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port)).bigEndian
        address.sin_addr = in_addr(s_addr: inet_addr("127.0.0.1"))
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            #if canImport(Glibc)
                Glibc.close(fd)
            #else
                Darwin.close(fd)
            #endif
            throw URLError(.cannotConnectToHost)
        }
    }

    func write(_ data: Data) throws {
        let sent = data.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
        guard sent == data.count else { throw URLError(.networkConnectionLost) }
    }

    /// Reads until the peer closes, or `limit` bytes, or the receive timeout.
    func readToEnd(limit: Int = 64 << 20) throws -> Data {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while data.count < limit {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count <= 0 { break }
            data.append(contentsOf: buffer[0..<count])
        }
        return data
    }

    /// Reads whatever arrives within the receive timeout (at least one read).
    func readSome() -> Data {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        return count > 0 ? Data(buffer[0..<count]) : Data()
    }

    func close() {
        #if canImport(Glibc)
            Glibc.close(fd)
        #else
            Darwin.close(fd)
        #endif
    }
}
