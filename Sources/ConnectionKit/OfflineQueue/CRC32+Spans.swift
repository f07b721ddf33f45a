import Foundation

/// Checking many spans of one buffer at once, in a single pass whatever their number and overlap.
///
/// A damaged journal segment is scanned byte by byte for the next record, and every place that looks like a
/// record header claims a payload whose checksum must be computed. Checked one by one, headers that overlap
/// (crafted, or a run of damage) cost the sum of their payloads: quadratic in the segment's size. The CRC is
/// linear over GF(2), so the checksum of any span follows from two prefix checksums: with `P(i)` the CRC of
/// the first `i` bytes, `crc(s..<e) = P(e) ⊕ x^(8(e−s))·P(s)` (zlib's `crc32_combine`). Multiplying by
/// `x^(−8e)` separates the two ends: `x^(−8e)·crc(s..<e) = Q(e) ⊕ Q(s)` with `Q(i) = x^(−8i)·P(i)`. One
/// pass keeps `P(i)` and `x^(−8i)` running and computes `Q` only where a span starts or ends.
extension CRC32 {
    /// One span to check: its bytes and the checksum they must have.
    struct Span {
        var bytes: Range<Int>
        var checksum: UInt32
    }

    /// The reflected IEEE polynomial (bit 31 is the coefficient of `x^0`).
    private static let polynomial: UInt32 = 0xEDB8_8320
    private static let one: UInt32 = 0x8000_0000

    /// The byte step of the CRC register (the standard table).
    private static let forward: [UInt32] = (0..<256).map { index in
        (0..<8).reduce(UInt32(index)) { value, _ in (value & 1) != 0 ? polynomial ^ (value >> 1) : value >> 1 }
    }

    /// Multiplication by `x^(−8)` through the top byte: `v·x^(−8) = (v << 8) ⊕ backward[v >> 24]`.
    private static let backward: [UInt32] = (0..<256).map { index in
        (0..<8).reduce(UInt32(index) << 24) { value, _ in
            (value & one) != 0 ? ((value ^ polynomial) << 1) | 1 : value << 1
        }
    }

    /// `a·b mod p`, both in the reflected representation (zlib's `multmodp`).
    static func multiply(_ a: UInt32, _ b: UInt32) -> UInt32 {
        var (mask, product, factor) = (one, UInt32(0), b)
        while mask != 0 {
            if a & mask != 0 { product ^= factor }
            mask >>= 1
            factor = (factor & 1) != 0 ? (factor >> 1) ^ polynomial : factor >> 1
        }
        return product
    }

    /// Whether each span of `buffer` has its checksum, in one pass over `buffer`: the bytes are read once,
    /// and each span costs a few multiplications and its share of two sorts.
    static func matches(_ spans: [Span], in buffer: UnsafeRawBufferPointer) -> [Bool] {
        let starts = spans.indices.sorted { spans[$0].bytes.lowerBound < spans[$1].bytes.lowerBound }
        let ends = spans.indices.sorted { spans[$0].bytes.upperBound < spans[$1].bytes.upperBound }
        let startPositions = starts.map { spans[$0].bytes.lowerBound } + [Int.max]
        let endPositions = ends.map { spans[$0].bytes.upperBound } + [Int.max]
        var startQ = [UInt32](repeating: 0, count: spans.count)
        var result = [Bool](repeating: false, count: spans.count)
        var (register, inverse) = (UInt32(0xFFFF_FFFF), one)
        var (nextStart, nextEnd, position) = (0, 0, 0)
        while true {
            // The bytes up to the next place where a span starts or ends, in a tight loop.
            let boundary = min(startPositions[nextStart], endPositions[nextEnd], buffer.count)
            advance(&register, &inverse, over: buffer, from: position, to: boundary)
            position = boundary
            guard startPositions[nextStart] == position || endPositions[nextEnd] == position else { break }
            let normalized = multiply(inverse, register ^ 0xFFFF_FFFF)
            while startPositions[nextStart] == position {
                startQ[starts[nextStart]] = normalized
                nextStart += 1
            }
            while endPositions[nextEnd] == position {
                let index = ends[nextEnd]
                result[index] = normalized ^ startQ[index] == multiply(inverse, spans[index].checksum)
                nextEnd += 1
            }
        }
        return result
    }

    /// Feeds `buffer[from..<to]` to the CRC `register` and multiplies `inverse` by `x^(−8)` per byte.
    private static func advance(
        _ register: inout UInt32, _ inverse: inout UInt32, over buffer: UnsafeRawBufferPointer, from: Int, to: Int
    ) {
        guard from < to else { return }
        forward.withUnsafeBufferPointer { forward in
            backward.withUnsafeBufferPointer { backward in
                for position in from..<to {
                    register = forward[Int((register ^ UInt32(buffer[position])) & 0xFF)] ^ (register >> 8)
                    inverse = (inverse << 8) ^ backward[Int(inverse >> 24)]
                }
            }
        }
    }
}
