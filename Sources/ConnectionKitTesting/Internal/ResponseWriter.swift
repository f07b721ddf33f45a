import Foundation
import HTTPServerCore

/// Puts one ``TestResponse`` on the wire, faults included, and says what should happen to the connection next.
struct ResponseWriter {
    // MARK: - Properties

    let connection: SocketConnection

    // MARK: - Writing

    /// Writes `response` as the answer to `received` and returns what the connection loop should do next.
    func write(_ response: TestResponse, answering received: ReceivedRequest) throws -> ConnectionDisposition {
        try connection.pause(response.delayBeforeHeaders)
        let keepAlive =
            received.allowsKeepAlive
            && !(response.headers.firstValue(named: "Connection")?.lowercased().contains("close") ?? false)

        switch response.fault {
        case .closeBeforeHeaders?:
            return .close
        case .resetBeforeHeaders?:
            return .reset
        case .notHTTP(let bytes)?:
            try connection.write(bytes)
            return .close
        case .raw(let bytes)?:
            try connection.write(bytes)
            return keepAlive && Self.declaresKeepAlive(bytes) ? .keepAlive : .close
        case .neverRespond?:
            connection.holdUntilPeerCloses()
            return .close
        case .neverFinishHeaders?:
            try connection.write("HTTP/1.1 200 OK\r\nX-Test-Fault: never-finish-headers\r\n")
            connection.holdUntilPeerCloses()
            return .close
        case .closeAfterBodyBytes(let count)?:
            try writeWellFormed(response, answering: received, keepAlive: false, bodyLimit: max(0, count))
            return .close
        case .resetAfterBodyBytes(let count)?:
            try writeWellFormed(response, answering: received, keepAlive: false, bodyLimit: max(0, count))
            return .reset
        case .shortBody?:
            try writeWellFormed(response, answering: received, keepAlive: false, bodyLimit: nil)
            return .close
        case .hugeHeaders?, nil:
            try writeWellFormed(response, answering: received, keepAlive: keepAlive, bodyLimit: nil)
            return keepAlive ? .keepAlive : .close
        }
    }

    // MARK: - Head

    private func writeWellFormed(
        _ response: TestResponse,
        answering received: ReceivedRequest,
        keepAlive: Bool,
        bodyLimit: Int?
    ) throws {
        let bodyAllowed = !(100..<200).contains(response.status) && response.status != 204 && response.status != 304
        var headers = response.headers
        if !keepAlive && !headers.contains(named: "Connection") {
            headers.append(TestHeader("Connection", "close"))
        }
        if bodyAllowed {
            switch response.body {
            case .data(let data):
                Self.setLength(Int64(data.count), in: &headers, fault: response.fault)
            case .drip(let data, _, _):
                Self.setLength(Int64(data.count), in: &headers, fault: response.fault)
            case .generated(let length, _):
                Self.setLength(max(0, length), in: &headers, fault: response.fault)
            case .chunked, .stream:
                if !headers.contains(named: "Transfer-Encoding") {
                    headers.append(TestHeader("Transfer-Encoding", "chunked"))
                }
            }
        }
        if case .hugeHeaders(let bytes)? = response.fault {
            headers.append(contentsOf: Self.fillerHeaders(totalBytes: bytes))
        }

        var head = "HTTP/1.1 \(response.status) \(HTTPReasonPhrase.phrase(for: response.status))\r\n"
        for header in headers {
            head += "\(header.name): \(header.value)\r\n"
        }
        head += "\r\n"
        try connection.write(head)

        guard bodyAllowed, received.request.method.uppercased() != "HEAD" else { return }
        var budget = bodyLimit
        try writeBody(response.body, budget: &budget)
    }

    private static func setLength(_ length: Int64, in headers: inout [TestHeader], fault: TestFault?) {
        if case .shortBody(let declared)? = fault {
            headers.removeAll { $0.name.caseInsensitiveCompare("Content-Length") == .orderedSame }
            headers.append(TestHeader("Content-Length", String(declared)))
        } else if !headers.contains(named: "Content-Length") {
            headers.append(TestHeader("Content-Length", String(length)))
        }
    }

    private static func fillerHeaders(totalBytes: Int) -> [TestHeader] {
        var headers: [TestHeader] = []
        var written = 0
        var index = 1
        while written < totalBytes {
            let name = "X-Filler-\(index)"
            let overhead = name.utf8.count + 4
            let valueLength = max(1, min(1_000, totalBytes - written - overhead))
            headers.append(TestHeader(name, String(repeating: "f", count: valueLength)))
            written += overhead + valueLength
            index += 1
        }
        return headers
    }

    private static func declaresKeepAlive(_ bytes: Data) -> Bool {
        let headEnd = bytes.range(of: Data("\r\n\r\n".utf8))?.lowerBound ?? bytes.endIndex
        let head = String(decoding: bytes[bytes.startIndex..<headEnd], as: UTF8.self).lowercased()
        return head.components(separatedBy: "\r\n").contains { line in
            line.hasPrefix("connection:") && line.contains("keep-alive")
        }
    }

    // MARK: - Body

    private func writeBody(_ body: TestBody, budget: inout Int?) throws {
        switch body {
        case .data(let data):
            try send(data, budget: &budget)
        case .chunked(let chunks):
            for chunk in chunks where !chunk.isEmpty {
                var framed = Data(String(chunk.count, radix: 16).utf8)
                framed.append(contentsOf: [13, 10])
                framed.append(chunk)
                framed.append(contentsOf: [13, 10])
                guard try send(framed, budget: &budget) else { return }
            }
            try send(Data("0\r\n\r\n".utf8), budget: &budget)
        case .stream(let interval, let next):
            var index = 0
            while let chunk = next(index) {
                if index > 0 { try connection.pause(interval) }
                index += 1
                guard !chunk.isEmpty else { continue }
                guard try send(Self.framedChunk(chunk), budget: &budget) else { return }
            }
            try send(Data("0\r\n\r\n".utf8), budget: &budget)
        case .drip(let data, let chunkSize, let interval):
            let step = max(1, chunkSize)
            var offset = data.startIndex
            while offset < data.endIndex {
                if offset != data.startIndex { try connection.pause(interval) }
                let end = min(offset + step, data.endIndex)
                guard try send(Data(data[offset..<end]), budget: &budget) else { return }
                offset = end
            }
        case .generated(let length, let seed):
            var offset: Int64 = 0
            while offset < length {
                let count = Int(min(Int64(TestBody.generatedBlockSize), length - offset))
                let block = TestBody.generatedBytes(offset: offset, count: count, seed: seed)
                guard try send(block, budget: &budget) else { return }
                offset += Int64(count)
            }
        }
    }

    static func framedChunk(_ chunk: Data) -> Data {
        var framed = Data(String(chunk.count, radix: 16).utf8)
        framed.append(contentsOf: [13, 10])
        framed.append(chunk)
        framed.append(contentsOf: [13, 10])
        return framed
    }

    /// Sends as much of `data` as `budget` allows (the bytes a `closeAfterBodyBytes`/`resetAfterBodyBytes`
    /// fault still lets through; `nil` means no limit). Returns `false` once the budget is spent.
    @discardableResult
    private func send(_ data: Data, budget: inout Int?) throws -> Bool {
        guard let remaining = budget else {
            try connection.write(data)
            return true
        }
        let count = min(remaining, data.count)
        if count > 0 { try connection.write(Data(data.prefix(count))) }
        budget = remaining - count
        return remaining - count > 0
    }
}
