import Foundation

extension HTTPRequestReader {
    /// Parses a head (without its final empty line) in one pass over its bytes: each byte is copied a
    /// bounded number of times whatever its shape, so obsolete folded lines join in linear time.
    /// More than `headerLines` header lines (continuations included) throw ``ConnectionEnd/headersTooLarge``.
    static func parseHead(
        _ head: [UInt8], headerLines: Int, receivedAt: Date, connectionID: Int
    ) throws -> ReceivedRequest {
        var lines = HeadLines(head)
        guard let first = lines.next() else { throw ConnectionEnd.malformedRequest }
        let requestLine = String(decoding: first, as: UTF8.self).split(separator: " ", omittingEmptySubsequences: true)
        guard requestLine.count == 3, requestLine[2].hasPrefix("HTTP/") else { throw ConnectionEnd.malformedRequest }

        var headers: [HeaderLine] = []
        var pending: (name: String, value: [UInt8])?
        var lineCount = 0
        while let line = lines.next() {
            guard !line.isEmpty else { continue }
            lineCount += 1
            guard lineCount <= headerLines else { throw ConnectionEnd.headersTooLarge }
            if line.first == 32 || line.first == 9, pending != nil {
                // An obsolete folded line continues the previous value (RFC 9112 5.2: joined with a space).
                pending?.value.append(32)
                pending?.value.append(contentsOf: trimmed(line))
                continue
            }
            if let done = pending { headers.append(header(done)) }
            guard let colon = line.firstIndex(of: 58) else { throw ConnectionEnd.malformedRequest }
            pending = (String(decoding: line[..<colon], as: UTF8.self), Array(trimmed(line[(colon + 1)...])))
        }
        if let done = pending { headers.append(header(done)) }

        let (path, query) = splitTarget(String(requestLine[1]))
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

    /// A header line from its name and value bytes, the value trimmed (a folded value may start with a space).
    private static func header(_ pending: (name: String, value: [UInt8])) -> HeaderLine {
        HeaderLine(pending.name, String(decoding: trimmed(pending.value[...]), as: UTF8.self))
    }

    /// The path and query of a request target; an absolute-form target is reduced to its path.
    private static func splitTarget(_ raw: String) -> (path: String, query: String?) {
        var target = raw
        if let schemeEnd = target.range(of: "://"), target.hasPrefix("http") {
            let afterAuthority = target[schemeEnd.upperBound...]
            target =
                afterAuthority.firstIndex(where: { $0 == "/" || $0 == "?" })
                .map { String(afterAuthority[$0...]) } ?? "/"
            if target.hasPrefix("?") { target = "/" + target }
        }
        guard let mark = target.firstIndex(of: "?") else { return (target, nil) }
        return (String(target[..<mark]), String(target[target.index(after: mark)...]))
    }

    /// `bytes` without leading and trailing spaces and tabs.
    private static func trimmed(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var slice = bytes
        while let first = slice.first, first == 32 || first == 9 { slice.removeFirst() }
        while let last = slice.last, last == 32 || last == 9 { slice.removeLast() }
        return slice
    }
}

/// The CRLF-separated lines of a head, as slices of it (a lone LF stays inside its line).
private struct HeadLines {
    private let bytes: [UInt8]
    private var position = 0

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    mutating func next() -> ArraySlice<UInt8>? {
        guard position <= bytes.count else { return nil }
        let start = position
        if let end = HTTPRequestReader.find([13, 10], in: bytes, from: start) {
            position = end + 2
            return bytes[start..<end]
        }
        position = bytes.count + 1
        return bytes[start...]
    }
}
