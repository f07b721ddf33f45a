import Foundation

/// The stored form of an entry, and its reading, which trusts nothing it reads.
///
/// Layout: `CKHC` · version (1 byte) · header length (4 bytes, big-endian) · body length (4 bytes) · header
/// (JSON: URL, method, status, fields, times, vary values, partition) · body · CRC-32 of everything before it
/// (4 bytes). A torn or damaged file fails the length or the checksum; a whole one is range-checked field by
/// field before it is used.
extension HTTPCacheEntry {
    /// Why stored bytes were refused.
    struct DamagedError: Error, CustomStringConvertible {
        let description: String
    }

    private struct Header: Codable {
        var url: String
        var method: String
        var status: Int
        var headers: [String: String]
        var requestTime: Double
        var responseTime: Double
        var vary: [VaryValue]
        var partition: String
    }

    static let magic: [UInt8] = Array("CKHC".utf8)
    static let version: UInt8 = 1
    /// The largest header read back: far above any real one, small enough that a hostile length costs nothing.
    static let headerLimit = 1 << 20
    /// Fixed bytes around the header and body: magic, version, two lengths, checksum.
    static let framing = 4 + 1 + 4 + 4 + 4

    /// The bytes to store.
    func encoded() throws -> Data {
        let header = Header(
            url: url, method: method, status: status, headers: headers,
            requestTime: requestTime.timeIntervalSince1970, responseTime: responseTime.timeIntervalSince1970,
            vary: vary, partition: partition)
        let json = try JSONEncoder().encode(header)
        guard json.count <= Self.headerLimit, body.count <= Int(UInt32.max) else {
            throw DamagedError(description: "an entry too large to store")
        }
        var data = Data(Self.magic)
        data.append(Self.version)
        Self.appendUInt32(UInt32(json.count), to: &data)
        Self.appendUInt32(UInt32(body.count), to: &data)
        data.append(json)
        data.append(body)
        Self.appendUInt32(CRC32.checksum(data), to: &data)
        return data
    }

    /// Reads stored bytes back, refusing anything torn, damaged or out of range.
    static func decode(_ input: Data) throws -> HTTPCacheEntry {
        let bytes = [UInt8](input)
        guard bytes.count >= framing, Array(bytes[0..<4]) == magic else { throw damaged("not a cache entry") }
        guard bytes[4] == version else { throw damaged("version \(bytes[4])") }
        let headerLength = Int(readUInt32(bytes, at: 5))
        let bodyLength = Int(readUInt32(bytes, at: 9))
        guard headerLength <= headerLimit, framing + headerLength + bodyLength == bytes.count else {
            throw damaged("lengths that do not add up to the file's \(bytes.count) bytes")
        }
        let end = bytes.count - 4
        guard CRC32.checksum(bytes[0..<end]) == readUInt32(bytes, at: end) else { throw damaged("a bad checksum") }
        let header: Header
        do {
            header = try JSONDecoder().decode(Header.self, from: Data(bytes[13..<13 + headerLength]))
        } catch {
            throw damaged("an unreadable header")
        }
        try check(header)
        return HTTPCacheEntry(
            url: header.url, method: header.method, status: header.status, headers: header.headers,
            requestTime: Date(timeIntervalSince1970: header.requestTime),
            responseTime: Date(timeIntervalSince1970: header.responseTime), vary: header.vary,
            partition: header.partition, body: Data(bytes[(13 + headerLength)..<end]))
    }

    /// Range checks on every field of a header whose checksum matched (a checksum proves no intent).
    private static func check(_ header: Header) throws {
        let times = [header.requestTime, header.responseTime]
        guard header.method == "GET", (200...599).contains(header.status) else { throw damaged("a bad status line") }
        guard times.allSatisfy({ $0.isFinite && abs($0) < 1e11 }) else { throw damaged("a time out of range") }
        guard header.url.utf8.count <= 65_536, URL(string: header.url) != nil else { throw damaged("a bad URL") }
        guard header.partition.isEmpty || isHexDigest(header.partition) else { throw damaged("a bad partition") }
        guard header.headers.count <= 1_000, header.vary.count <= 64 else { throw damaged("too many fields") }
        let fieldTexts = header.headers.flatMap { [$0.key, $0.value] } + header.vary.map(\.name)
        guard fieldTexts.allSatisfy(isFieldText), header.headers.keys.allSatisfy({ $0 == $0.lowercased() }) else {
            throw damaged("a malformed header field")
        }
        guard header.headers.keys.allSatisfy({ !HTTPCacheRules.unstoredFields.contains($0) }) else {
            throw damaged("a field that is never stored")
        }
    }

    private static func isHexDigest(_ text: String) -> Bool {
        text.utf8.count == 64 && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    /// No control characters (CR, LF, NUL, ...): a stored field can never split into two on the wire.
    private static func isFieldText(_ text: String) -> Bool {
        text.utf8.count <= 65_536 && text.utf8.allSatisfy { $0 >= 0x20 && $0 != 0x7F || $0 == 0x09 }
    }

    private static func damaged(_ reason: String) -> DamagedError {
        DamagedError(description: "a damaged cache entry: \(reason)")
    }

    private static func appendUInt32(_ value: UInt32, to data: inout Data) {
        withUnsafeBytes(of: value.bigEndian) { data.append(contentsOf: $0) }
    }

    private static func readUInt32(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        bytes[offset..<offset + 4].reduce(0) { $0 << 8 | UInt32($1) }
    }
}
