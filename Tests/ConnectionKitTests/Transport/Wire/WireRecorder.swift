import Foundation

#if canImport(Glibc)
    import Glibc

    /// A loopback server (a ``RawLoopbackServer``) that records the exact bytes of every request it
    /// receives: its request line, its header lines as they came, and its body (read by its
    /// `Content-Length` or its chunks). It answers `100 Continue` to `Expect: 100-continue`, a 307 to
    /// `/wire/redirect307`, a 303 to `/wire/redirect303` (both to `/wire/landed`) and a 200 to the rest.
    final class WireRecorder: Sendable {
        /// One request as it arrived.
        struct Record: Sendable, Equatable, CustomStringConvertible {
            var requestLine: String
            /// The header lines as received, without their CRLF, in order.
            var fields: [String]
            var body: Data

            /// The value of the first field called `name` (any case), without surrounding spaces.
            func value(_ name: String) -> String? {
                fields.lazy.compactMap { line -> String? in
                    guard let colon = line.firstIndex(of: ":"), line[..<colon].lowercased() == name.lowercased()
                    else { return nil }
                    return line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                }.first
            }

            var description: String { "\(requestLine) \(fields) body \(body.count) bytes" }
        }

        private let records: Locked<[Record]>
        private let server: RawLoopbackServer

        init() throws {
            let records = Locked<[Record]>([])
            self.records = records
            server = try RawLoopbackServer { connection in
                while let record = Self.readRequest(connection) {
                    records.withLock { $0.append(record) }
                    connection.write(Self.answer(to: record))
                }
            }
        }

        var url: URL { server.url }

        /// The requests received so far; clears the list.
        func take() -> [Record] {
            records.withLock { records in
                defer { records = [] }
                return records
            }
        }

        private static func answer(to record: Record) -> String {
            let path = RawLoopbackServer.Connection.requestLine(of: record.requestLine).path
            switch path {
            case "/wire/redirect307":
                return "HTTP/1.1 307 Temporary Redirect\r\nLocation: /wire/landed\r\nContent-Length: 0\r\n\r\n"
            case "/wire/redirect303":
                return "HTTP/1.1 303 See Other\r\nLocation: /wire/landed\r\nContent-Length: 0\r\n\r\n"
            default:
                let head = record.requestLine.hasPrefix("HEAD ")
                return "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n" + (head ? "" : "ok")
            }
        }

        private static func readRequest(_ connection: RawLoopbackServer.Connection) -> Record? {
            guard let head = connection.readHead() else { return nil }
            var lines = head.components(separatedBy: "\r\n")
            while lines.last == "" { lines.removeLast() }
            guard !lines.isEmpty else { return nil }
            var record = Record(requestLine: lines.removeFirst(), fields: lines, body: Data())
            if record.value("Expect")?.lowercased() == "100-continue" {
                connection.write("HTTP/1.1 100 Continue\r\n\r\n")
            }
            if record.value("Transfer-Encoding")?.lowercased() == "chunked" {
                guard let body = readChunks(connection) else { return nil }
                record.body = body
            } else if let length = record.value("Content-Length").flatMap(Int.init), length > 0 {
                guard let body = read(connection, count: length) else { return nil }
                record.body = body
            }
            return record
        }

        private static func read(_ connection: RawLoopbackServer.Connection, count: Int) -> Data? {
            var data = Data(capacity: count)
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while data.count < count {
                let got = recv(connection.descriptor, &buffer, min(buffer.count, count - data.count), 0)
                guard got > 0 else { return nil }
                data.append(contentsOf: buffer[..<got])
            }
            return data
        }

        private static func readLine(_ connection: RawLoopbackServer.Connection) -> String? {
            var line = [UInt8]()
            var byte: UInt8 = 0
            while !(line.count >= 2 && line[line.count - 2] == 13 && line[line.count - 1] == 10) {
                guard recv(connection.descriptor, &byte, 1, 0) == 1 else { return nil }
                line.append(byte)
            }
            return String(decoding: line.dropLast(2), as: UTF8.self)
        }

        private static func readChunks(_ connection: RawLoopbackServer.Connection) -> Data? {
            var body = Data()
            while let line = readLine(connection) {
                guard let size = Int(line.prefix { $0 != ";" }, radix: 16) else { return nil }
                guard size > 0 else {
                    // Trailers, up to the blank line.
                    while let trailer = readLine(connection), !trailer.isEmpty {}
                    return body
                }
                guard let chunk = read(connection, count: size), readLine(connection) == "" else { return nil }
                body.append(chunk)
            }
            return nil
        }
    }
#endif
