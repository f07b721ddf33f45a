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
    static func scan(_ data: Data) -> Scan {
        let bytes = [UInt8](data)
        var scan = Scan()
        var offset = 0
        var badStart: Int?
        func endBad(at end: Int) {
            guard let start = badStart else { return }
            badStart = nil
            if bytes[start..<end].contains(where: { $0 != 0 }) { scan.damaged.append(start..<end) }
        }
        while offset < bytes.count {
            if let (record, length) = decode(bytes, at: offset) {
                endBad(at: offset)
                scan.records.append((record, offset..<(offset + length)))
                offset += length
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

    /// The record framed at `offset`, and its whole length; `nil` when the bytes there are not one.
    private static func decode(_ bytes: [UInt8], at offset: Int) -> (JournalRecord, Int)? {
        guard bytes.count - offset >= headerSize, (0..<4).allSatisfy({ bytes[offset + $0] == magic[$0] }),
            let kind = KindByte(rawValue: bytes[offset + 4])
        else { return nil }
        let length = Int(readUInt32(bytes, at: offset + 5))
        let checksum = readUInt32(bytes, at: offset + 9)
        let start = offset + headerSize
        guard length <= maximumPayloadSize, length <= bytes.count - start else { return nil }
        let payload = bytes[start..<(start + length)]
        guard CRC32.checksum(payload) == checksum else { return nil }
        switch kind {
        case .entry:
            guard length > 8 else { return nil }
            let json = Data(payload.dropFirst(8))
            return (.entry(sequence: readUInt64(bytes, at: start), json: json), headerSize + length)
        case .attempts:
            guard length == 12 else { return nil }
            let attempts = Int(readUInt32(bytes, at: start + 8))
            return (.attempts(sequence: readUInt64(bytes, at: start), attempts: attempts), headerSize + length)
        case .resolved:
            guard length % 8 == 0 else { return nil }
            let sequences = stride(from: start, to: start + length, by: 8).map { readUInt64(bytes, at: $0) }
            return (.resolved(sequences), headerSize + length)
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
