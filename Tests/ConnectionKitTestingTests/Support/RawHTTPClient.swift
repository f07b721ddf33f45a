import ConnectionKitTesting
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A blocking TCP client for checks URLSession cannot express: exact bytes, EOF versus reset, keep-alive.
/// Every read has a timeout, so a broken server fails the test instead of hanging it.
final class RawHTTPClient {
    // MARK: - Types

    /// How a read ended.
    enum Ending: Equatable {
        case eof
        case reset
        case timeout
        case otherError(Int32)
    }

    /// A parsed response.
    struct Response {
        var status: Int
        var headers: [TestHeader]
        var body: Data
        var headByteCount: Int

        func header(_ name: String) -> String? {
            headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
        }
    }

    // MARK: - State

    let fd: Int32
    private var buffer = Data()
    private var closed = false

    // MARK: - Init

    init(port: Int) throws {
        #if canImport(Glibc)
            fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw TestError("socket failed: errno \(errno)") }
        var address = sockaddr_in()
        #if canImport(Darwin)
            address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
            var yes: Int32 = 1
            _ = setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &yes, socklen_t(MemoryLayout<Int32>.size))
        #endif
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port)).bigEndian
        address.sin_addr = in_addr(s_addr: inet_addr("127.0.0.1"))
        let result = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            let code = errno
            // A class whose init throws after every property is set still runs deinit, which closes the fd.
            close()
            throw TestError("connect failed: errno \(code)")
        }
    }

    deinit {
        close()
    }

    // MARK: - Writing

    func send(_ text: String) throws {
        try send(Data(text.utf8))
    }

    func send(_ data: Data) throws {
        #if canImport(Glibc)
            let flags = Int32(MSG_NOSIGNAL)
        #else
            let flags: Int32 = 0
        #endif
        try data.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress else { return }
            var offset = 0
            while offset < buffer.count {
                let sent = systemSend(fd, base + offset, buffer.count - offset, flags)
                if sent < 0 {
                    if errno == EINTR { continue }
                    throw TestError("send failed: errno \(errno)")
                }
                offset += sent
            }
        }
    }

    /// Sends a GET with the given extra header lines (each without CRLF).
    func sendGET(_ path: String, headers: [String] = []) throws {
        var text = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        for line in headers { text += line + "\r\n" }
        try send(text + "\r\n")
    }

    // MARK: - Reading

    /// Reads one chunk into the buffer; returns the ending if the read did not produce data.
    @discardableResult
    func fill(timeout: TimeInterval) -> Ending? {
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let ready = poll(&descriptor, 1, Int32(timeout * 1000))
        if ready == 0 { return .timeout }
        if ready < 0 { return .otherError(errno) }
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if count > 0 {
            buffer.append(contentsOf: chunk[0..<count])
            return nil
        }
        if count == 0 { return .eof }
        return errno == ECONNRESET ? .reset : .otherError(errno)
    }

    /// Reads until the server closes (or `timeout` passes between reads); returns everything read and how it
    /// ended.
    func readUntilClosed(timeout: TimeInterval = 5) -> (bytes: Data, ending: Ending) {
        while true {
            if let ending = fill(timeout: timeout) {
                let bytes = buffer
                buffer = Data()
                return (bytes, ending)
            }
        }
    }

    /// Reads until `marker` has arrived; the bytes read so far stay buffered. Throws on timeout or close.
    func readUntil(_ marker: String, timeout: TimeInterval = 5) throws -> Data {
        let needle = Data(marker.utf8)
        while buffer.range(of: needle) == nil {
            if let ending = fill(timeout: timeout) {
                throw TestError("connection ended (\(ending)) before \(marker.debugDescription)")
            }
        }
        return buffer
    }

    /// Whether nothing at all arrives (no data, no close) for `interval` seconds.
    func staysSilent(for interval: TimeInterval) -> Bool {
        buffer.isEmpty && fill(timeout: interval) == .timeout
    }

    /// Reads one complete response (Content-Length, chunked, or until close). `isHEAD` skips the body.
    func readResponse(isHEAD: Bool = false, timeout: TimeInterval = 5) throws -> Response {
        let separator = Data("\r\n\r\n".utf8)
        while buffer.range(of: separator) == nil {
            if let ending = fill(timeout: timeout) {
                throw TestError("connection ended (\(ending)) before a response head")
            }
        }
        guard let headEnd = buffer.range(of: separator) else { throw TestError("no head") }
        let headText = String(decoding: buffer[buffer.startIndex..<headEnd.lowerBound], as: UTF8.self)
        let headByteCount = headEnd.upperBound - buffer.startIndex
        buffer = Data(buffer[headEnd.upperBound...])
        var lines = headText.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else {
            throw TestError("bad status line in \(headText.prefix(80))")
        }
        let headers = lines.compactMap { line -> TestHeader? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return TestHeader(
                String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        var response = Response(status: status, headers: headers, body: Data(), headByteCount: headByteCount)
        if isHEAD || status == 204 || status == 304 || (100..<200).contains(status) { return response }
        if response.header("Transfer-Encoding")?.lowercased() == "chunked" {
            response.body = try readChunkedBody(timeout: timeout)
        } else if let length = response.header("Content-Length").flatMap(Int.init) {
            while buffer.count < length {
                if let ending = fill(timeout: timeout) {
                    throw TestError("connection ended (\(ending)) after \(buffer.count) of \(length) body bytes")
                }
            }
            response.body = Data(buffer.prefix(length))
            buffer = Data(buffer.dropFirst(length))
        } else {
            response.body = readUntilClosed(timeout: timeout).bytes
        }
        return response
    }

    private func readChunkedBody(timeout: TimeInterval) throws -> Data {
        var body = Data()
        while true {
            let sizeLine = try readLine(timeout: timeout)
            guard let size = Int(sizeLine.split(separator: ";").first.map(String.init) ?? "", radix: 16) else {
                throw TestError("bad chunk size line \(sizeLine.debugDescription)")
            }
            if size == 0 {
                while try !readLine(timeout: timeout).isEmpty {}
                return body
            }
            while buffer.count < size + 2 {
                if let ending = fill(timeout: timeout) { throw TestError("connection ended (\(ending)) in a chunk") }
            }
            body.append(buffer.prefix(size))
            buffer = Data(buffer.dropFirst(size + 2))
        }
    }

    private func readLine(timeout: TimeInterval) throws -> String {
        let crlf = Data("\r\n".utf8)
        while buffer.range(of: crlf) == nil {
            if let ending = fill(timeout: timeout) { throw TestError("connection ended (\(ending)) in a line") }
        }
        guard let end = buffer.range(of: crlf) else { throw TestError("no line") }
        let line = String(decoding: buffer[buffer.startIndex..<end.lowerBound], as: UTF8.self)
        buffer = Data(buffer[end.upperBound...])
        return line
    }

    // MARK: - Closing

    func close() {
        guard !closed else { return }
        closed = true
        systemClose(fd)
    }
}

// The class has methods named `send` and `close`, so the C functions are reached through these names.
private func systemClose(_ fd: Int32) {
    #if canImport(Glibc)
        _ = Glibc.close(fd)
    #else
        _ = Darwin.close(fd)
    #endif
}

private func systemSend(_ fd: Int32, _ pointer: UnsafeRawPointer, _ count: Int, _ flags: Int32) -> Int {
    #if canImport(Glibc)
        return Glibc.send(fd, pointer, count, flags)
    #else
        return Darwin.send(fd, pointer, count, flags)
    #endif
}
