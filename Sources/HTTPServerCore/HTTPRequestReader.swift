import Foundation

/// Reads HTTP/1.1 requests one after another from a connection, keeping bytes that arrive early
/// (pipelining) for the next request.
package struct HTTPRequestReader {
    // MARK: - Limits

    /// What one request may cost before it is refused: the bytes and lines of its head and how long it
    /// may take to arrive. Every check runs as bytes arrive, so a client pays for what it sends and no more.
    package struct Limits: Sendable {
        /// The most bytes of a head, counting the stray empty lines before it; more is answered with 431.
        package var headBytes: Int
        /// The most header lines (folded continuation lines count too); more is answered with 431.
        package var headerLines: Int
        /// How long a request (its head and body, from when the reader starts waiting for it) may take to
        /// arrive; `nil` for no limit. Past it the reader throws ``ConnectionEnd/timedOut``.
        package var requestTimeout: TimeInterval?

        package init(headBytes: Int, headerLines: Int, requestTimeout: TimeInterval?) {
            self.headBytes = headBytes
            self.headerLines = headerLines
            self.requestTimeout = requestTimeout
        }

        /// `TestServer`'s: a 1 MiB head, any number of lines, no deadline (tests stall on purpose).
        package static let testServer = Limits(headBytes: headLimit, headerLines: .max, requestTimeout: nil)
    }

    /// The largest request head `TestServer` accepts; a bigger one is answered with 431. 1 MiB.
    package static let headLimit = 1 << 20

    /// The longest chunk-size or trailer line accepted in a chunked body. 64 KiB.
    package static let lineLimit = 1 << 16

    // MARK: - State

    private let connection: SocketConnection
    private let limits: Limits
    private var buffer: [UInt8] = []
    /// Reused by every read, so a read costs what arrived rather than a fresh 64 KiB buffer.
    private var scratch = [UInt8](repeating: 0, count: 16_384)
    /// When the request being read must have arrived; `nil` without a deadline.
    private var deadline: Date?

    // MARK: - Init

    package init(connection: SocketConnection, limits: Limits = .testServer) {
        self.connection = connection
        self.limits = limits
        buffer = connection.buffered
    }

    // MARK: - Reading

    /// Reads the next request. Returns `nil` when the client closed cleanly between requests.
    /// Throws a `ConnectionEnd` for an oversized head, a malformed request, a truncated one, a missed
    /// deadline, or a server stop.
    /// `bodyConsumer` may return, for the request's path, a function that gets the body piece by piece as it
    /// arrives instead of it being stored (`TestServer` digests large uploads so).
    package mutating func readRequest(
        connectionID: Int, bodyConsumer: (String) -> ((ArraySlice<UInt8>) -> Void)? = { _ in nil }
    ) throws -> ReceivedRequest? {
        deadline = limits.requestTimeout.map { Date().addingTimeInterval($0) }
        guard let head = try readHead() else { return nil }
        let receivedAt = Date()
        var request = try Self.parseHead(
            head, headerLines: limits.headerLines, receivedAt: receivedAt, connectionID: connectionID)

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

    /// The head's bytes without its final empty line; `nil` when the client closed before sending any.
    /// Stray empty lines before it are skipped (RFC 9112 asks servers to tolerate some) but count against
    /// ``Limits/headBytes``, and each byte is looked at a bounded number of times.
    private mutating func readHead() throws -> [UInt8]? {
        var searchFrom = 0
        var skipped = 0
        while true {
            var start = 0
            while start + 1 < buffer.count && buffer[start] == 13 && buffer[start + 1] == 10 { start += 2 }
            if start > 0 {
                buffer.removeFirst(start)
                skipped += start
                searchFrom = 0
            }
            if let end = Self.find([13, 10, 13, 10], in: buffer, from: searchFrom) {
                guard skipped + end <= limits.headBytes else { throw ConnectionEnd.headersTooLarge }
                let head = Array(buffer[0..<end])
                buffer.removeFirst(end + 4)
                return head
            }
            if skipped + buffer.count > limits.headBytes { throw ConnectionEnd.headersTooLarge }
            searchFrom = max(0, buffer.count - 3)
            let count = try connection.receive(into: &scratch, deadline: deadline)
            if count == 0 {
                if buffer.isEmpty { return nil }
                throw ConnectionEnd.truncatedRequest
            }
            buffer.append(contentsOf: scratch[0..<count])
        }
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
        let count = try connection.receive(into: &scratch, deadline: deadline)
        guard count > 0 else { throw ConnectionEnd.truncatedRequest }
        buffer.append(contentsOf: scratch[0..<count])
    }

    // MARK: - Helpers

    static func find(_ pattern: [UInt8], in bytes: [UInt8], from start: Int) -> Int? {
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
