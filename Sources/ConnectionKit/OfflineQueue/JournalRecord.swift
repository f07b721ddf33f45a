import Foundation

/// One record of an offline queue's journal, and the framing that makes a torn or damaged record detectable.
///
/// On disk a record is `"CKQJ"`, a kind byte, the payload's length (UInt32, little-endian), the CRC-32 of the
/// payload (UInt32, little-endian), then the payload:
///
/// - ``entry``: the sequence number (UInt64, little-endian) followed by the operation as JSON;
/// - ``attempts``: the sequence number (UInt64) and the attempts made so far (UInt32);
/// - ``resolved``: sequence numbers (UInt64 each) delivered, dead-lettered or removed.
///
/// Every number is range-checked when read (see ``OfflineStore/decodeEntry(_:sequence:)``); nothing read
/// from disk can trap.
enum JournalRecord: Equatable {
    case entry(sequence: UInt64, json: Data)
    case attempts(sequence: UInt64, attempts: Int)
    case resolved([UInt64])

    static let magic: [UInt8] = Array("CKQJ".utf8)
    static let headerSize = 13
    /// No payload is larger; a length field above it is damage, not a record.
    static let maximumPayloadSize = 256 * 1024 * 1024

    private enum KindByte: UInt8 {
        case entry = 1
        case attempts = 2
        case resolved = 3
    }

    /// The record's bytes, framed.
    var framed: Data {
        var payload = Data()
        let kind: KindByte
        switch self {
        case .entry(let sequence, let json):
            kind = .entry
            payload.reserveCapacity(8 + json.count)
            Self.append(sequence, to: &payload)
            payload.append(json)
        case .attempts(let sequence, let attempts):
            kind = .attempts
            Self.append(sequence, to: &payload)
            Self.append(UInt32(clamping: attempts), to: &payload)
        case .resolved(let sequences):
            kind = .resolved
            payload.reserveCapacity(8 * sequences.count)
            for sequence in sequences { Self.append(sequence, to: &payload) }
        }
        var framed = Data(Self.magic)
        framed.reserveCapacity(Self.headerSize + payload.count)
        framed.append(kind.rawValue)
        Self.append(UInt32(clamping: payload.count), to: &framed)
        Self.append(CRC32.checksum(payload), to: &framed)
        framed.append(payload)
        return framed
    }

    /// What a scan of a journal segment found.
    struct Scan: Equatable {
        /// The records, each with the byte range it occupies.
        var records: [(record: JournalRecord, range: Range<Int>)] = []
        /// Ranges that are not records and are followed by a record: damage (or a record whose write failed).
        var damaged: [Range<Int>] = []
        /// Bytes after the last record that form no record: a write cut short by a crash, never acknowledged.
        var tail: Range<Int>?

        static func == (lhs: Scan, rhs: Scan) -> Bool {
            lhs.damaged == rhs.damaged && lhs.tail == rhs.tail && lhs.records.count == rhs.records.count
                && zip(lhs.records, rhs.records).allSatisfy { $0.record == $1.record && $0.range == $1.range }
        }
    }

    /// Splits a journal segment's bytes into records, damaged ranges and a torn tail. Zero bytes between
    /// records (space reserved by a write that a crash cut short) are skipped without being reported.
    /// Never traps, whatever `data` holds.
    ///
    /// After damage the scan moves on one byte at a time to find the next record, so every place that looks
    /// like a header is a candidate. Their checksums are all checked in one pass first
    /// (``CRC32/matches(_:in:)``), so that headers whose payloads overlap (crafted, or a run of damage) cost
    /// time in proportion to the segment, not to the sum of the payloads they claim.
    static func scan(_ data: Data) -> Scan {
        let bytes = [UInt8](data)
        let headers = candidateHeaders(in: bytes)
        let whole = bytes.withUnsafeBytes { buffer in
            CRC32.matches(headers.map { CRC32.Span(bytes: $0.payload, checksum: $0.checksum) }, in: buffer)
        }
        var scan = Scan()
        var offset = 0
        var next = 0
        var badStart: Int?
        func endBad(at end: Int) {
            guard let start = badStart else { return }
            badStart = nil
            if bytes[start..<end].contains(where: { $0 != 0 }) { scan.damaged.append(start..<end) }
        }
        while offset < bytes.count {
            while next < headers.count, headers[next].offset < offset { next += 1 }
            if next < headers.count, headers[next].offset == offset, whole[next],
                let record = record(headers[next], in: bytes)
            {
                endBad(at: offset)
                scan.records.append((record, offset..<headers[next].payload.upperBound))
                offset = headers[next].payload.upperBound
            } else {
                if badStart == nil { badStart = offset }
                offset += 1
            }
        }
        if let start = badStart {
            badStart = nil
            if bytes[start...].contains(where: { $0 != 0 }) { scan.tail = start..<bytes.count }
        }
        return scan
    }

    /// A place in a segment that could start a record: the magic, a known kind, and a payload length that
    /// fits in what follows. Whether it is a record depends on its checksum and its payload.
    private struct Header {
        var offset: Int
        var kind: KindByte
        var payload: Range<Int>
        var checksum: UInt32
    }

    /// Every ``Header`` of `bytes`, in order of offset.
    private static func candidateHeaders(in bytes: [UInt8]) -> [Header] {
        var headers: [Header] = []
        var offset = -1
        while bytes.count - offset > headerSize {
            offset += 1
            // The first byte alone rules out almost every offset.
            guard bytes[offset] == magic[0], bytes[offset + 1] == magic[1], bytes[offset + 2] == magic[2],
                bytes[offset + 3] == magic[3], let kind = KindByte(rawValue: bytes[offset + 4])
            else { continue }
            let length = Int(readUInt32(bytes, at: offset + 5))
            let start = offset + headerSize
            guard length <= maximumPayloadSize, length <= bytes.count - start else { continue }
            headers.append(
                Header(
                    offset: offset, kind: kind, payload: start..<(start + length),
                    checksum: readUInt32(bytes, at: offset + 9)))
        }
        return headers
    }

    /// The record `header` frames, its checksum already checked; `nil` when its payload is not one.
    private static func record(_ header: Header, in bytes: [UInt8]) -> JournalRecord? {
        let (start, length) = (header.payload.lowerBound, header.payload.count)
        switch header.kind {
        case .entry:
            guard length > 8 else { return nil }
            let json = Data(bytes[(start + 8)..<header.payload.upperBound])
            return .entry(sequence: readUInt64(bytes, at: start), json: json)
        case .attempts:
            guard length == 12 else { return nil }
            return .attempts(sequence: readUInt64(bytes, at: start), attempts: Int(readUInt32(bytes, at: start + 8)))
        case .resolved:
            guard length % 8 == 0 else { return nil }
            return .resolved(
                stride(from: start, to: header.payload.upperBound, by: 8).map { readUInt64(bytes, at: $0) })
        }
    }

    private static func append(_ value: UInt64, to data: inout Data) {
        withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) }
    }

    private static func append(_ value: UInt32, to data: inout Data) {
        withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) }
    }

    private static func readUInt32(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[offset + $1]) << (8 * UInt32($1)) }
    }

    private static func readUInt64(_ bytes: [UInt8], at offset: Int) -> UInt64 {
        (0..<8).reduce(UInt64(0)) { $0 | UInt64(bytes[offset + $1]) << (8 * UInt64($1)) }
    }
}
