import Foundation

/// Reads HTTP/1.1 requests one after another from a connection, keeping bytes that arrive early
/// (pipelining) for the next request.
package struct HTTPRequestReader {
    // MARK: - Limits

    /// The largest request head accepted; a bigger one is answered with 431. 1 MiB.
    package static let headLimit = 1 << 20

    /// The longest chunk-size or trailer line accepted in a chunked body. 64 KiB.
    package static let lineLimit = 1 << 16

    // MARK: - State

    private let connection: SocketConnection
    private var buffer: [UInt8] = []

    // MARK: - Init

    package init(connection: SocketConnection) {
        self.connection = connection
    }

    // MARK: - Reading

    /// Reads the next request. Returns `nil` when the client closed cleanly between requests.
    /// Throws a `ConnectionEnd` for an oversized head, a malformed request, a truncated one, or a server stop.
    /// `bodyConsumer` may return, for the request's path, a function that gets the body piece by piece as it
    /// arrives instead of it being stored (`TestServer` digests large uploads so).
    package mutating func readRequest(
        connectionID: Int, bodyConsumer: (String) -> ((ArraySlice<UInt8>) -> Void)? = { _ in nil }
    ) throws -> ReceivedRequest? {
        guard let head = try readHead() else { return nil }
        let receivedAt = Date()
        var request = try Self.parseHead(head, receivedAt: receivedAt, connectionID: connectionID)

        let isChunked = request.request.header("Transfer-Encoding")?.lowercased().contains("chunked") ?? false
        var contentLength = 0
        if !isChunked, let lengthText = request.request.header("Content-Length") {
            guard let length = Int(lengthText.trimmingCharacters(in: .whitespaces)), length >= 0 else {
                throw ConnectionEnd.malformedRequest
            }
            contentLength = length
        }
        let expectsContinue = request.request.header("Expect")?.lowercased() == "100-continue"
        if expectsContinue && (isChunked || contentLength > 0) {
            try connection.write("HTTP/1.1 100 Continue\r\n\r\n")
        }
        if let consume = bodyConsumer(request.request.path) {
            if isChunked {
                try readChunkedBody(consume)
            } else {
                try readStreaming(contentLength, consume)
            }
        } else if isChunked {
            var body = Data()
            try readChunkedBody { body.append(contentsOf: $0) }
            request.request.body = body
        } else if contentLength > 0 {
            request.request.body = Data(try readExactly(contentLength))
        }
        return request
    }

    // MARK: - Head

    private mutating func readHead() throws -> [UInt8]? {
        var searchFrom = 0
        while true {
            if let end = Self.find([13, 10, 13, 10], in: buffer, from: searchFrom) {
                guard end <= Self.headLimit else { throw ConnectionEnd.headersTooLarge }
                let head = Array(buffer[0..<end])
                buffer.removeFirst(end + 4)
                return head
            }
            if buffer.count > Self.headLimit { throw ConnectionEnd.headersTooLarge }
            searchFrom = max(0, buffer.count - 3)
            let more = try connection.readSome()
            if more.isEmpty {
                if buffer.isEmpty { return nil }
                throw ConnectionEnd.truncatedRequest
            }
            buffer.append(contentsOf: more)
            // Tolerate stray CRLFs between requests, as RFC 9112 asks.
            while buffer.count >= 2 && buffer[0] == 13 && buffer[1] == 10 {
                buffer.removeFirst(2)
                searchFrom = 0
            }
        }
    }

    private static func parseHead(_ head: [UInt8], receivedAt: Date, connectionID: Int) throws -> ReceivedRequest {
        let text = String(decoding: head, as: UTF8.self)
        var lines = text.components(separatedBy: "\r\n")
        let requestLine = lines.removeFirst().split(separator: " ", omittingEmptySubsequences: true)
        guard requestLine.count == 3, requestLine[2].hasPrefix("HTTP/") else { throw ConnectionEnd.malformedRequest }

        var headers: [HeaderLine] = []
        for line in lines where !line.isEmpty {
            if line.first == " " || line.first == "\t", let last = headers.popLast() {
                let folded = line.trimmingCharacters(in: .whitespaces)
                headers.append(HeaderLine(last.name, last.value + " " + folded))
                continue
            }
            guard let colon = line.firstIndex(of: ":") else { throw ConnectionEnd.malformedRequest }
            let name = String(line[..<colon])
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            headers.append(HeaderLine(name, value))
        }

        var target = String(requestLine[1])
        if let schemeEnd = target.range(of: "://"), target.hasPrefix("http") {
            let afterAuthority = target[schemeEnd.upperBound...]
            target =
                afterAuthority.firstIndex(where: { $0 == "/" || $0 == "?" })
                .map { String(afterAuthority[$0...]) } ?? "/"
            if target.hasPrefix("?") { target = "/" + target }
        }
        var path = target
        var query: String?
        if let mark = target.firstIndex(of: "?") {
            path = String(target[..<mark])
            query = String(target[target.index(after: mark)...])
        }
        let request = ParsedRequest(
            method: String(requestLine[0]),
            path: path,
            query: query,
            headers: headers,
            body: Data(),
            receivedAt: receivedAt,
            connectionID: connectionID
        )
        return ReceivedRequest(request: request, version: String(requestLine[2]))
    }

    // MARK: - Body

    /// Reads a chunked body, handing each chunk's bytes over piece by piece as they arrive.
    private mutating func readChunkedBody(_ consume: (ArraySlice<UInt8>) -> Void) throws {
        while true {
            let sizeLine = try readLine()
            let sizeText = sizeLine.split(separator: ";", maxSplits: 1).first.map(String.init) ?? ""
            guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16), size >= 0 else {
                throw ConnectionEnd.malformedRequest
            }
            if size == 0 {
                while try !readLine().isEmpty {}
                return
            }
            try readStreaming(size, consume)
            guard try readLine().isEmpty else { throw ConnectionEnd.malformedRequest }
        }
    }

    private mutating func readLine() throws -> String {
        var searchFrom = 0
        while true {
            if let end = Self.find([13, 10], in: buffer, from: searchFrom) {
                let line = String(decoding: buffer[0..<end], as: UTF8.self)
                buffer.removeFirst(end + 2)
                return line
            }
            if buffer.count > Self.lineLimit { throw ConnectionEnd.malformedRequest }
            searchFrom = max(0, buffer.count - 1)
            try fill()
        }
    }

    private mutating func readExactly(_ count: Int) throws -> [UInt8] {
        while buffer.count < count {
            try fill()
        }
        let bytes = Array(buffer[0..<count])
        buffer.removeFirst(count)
        return bytes
    }

    /// Reads `count` body bytes and hands them over piece by piece, never holding more than one read.
    private mutating func readStreaming(_ count: Int, _ consume: (ArraySlice<UInt8>) -> Void) throws {
        var remaining = count
        while remaining > 0 {
            if buffer.isEmpty { try fill() }
            let take = min(remaining, buffer.count)
            consume(buffer[0..<take])
            buffer.removeFirst(take)
            remaining -= take
        }
    }

    private mutating func fill() throws {
        let more = try connection.readSome()
        guard !more.isEmpty else { throw ConnectionEnd.truncatedRequest }
        buffer.append(contentsOf: more)
    }

    // MARK: - Helpers

    private static func find(_ pattern: [UInt8], in bytes: [UInt8], from start: Int) -> Int? {
        guard bytes.count >= pattern.count else { return nil }
        var index = max(0, start)
        while index <= bytes.count - pattern.count {
            if bytes[index] == pattern[0] {
                var matches = true
                for offset in 1..<pattern.count where bytes[index + offset] != pattern[offset] {
                    matches = false
                    break
                }
                if matches { return index }
            }
            index += 1
        }
        return nil
    }
}
