import Foundation

// MARK: - Deterministic generated content

extension TestBody {
    /// The block size the server uses when it streams a `.generated` body: 64 KiB.
    public static let generatedBlockSize = 65_536

    /// All `length` bytes of a `.generated(length:seed:)` body, in memory. Use it for small bodies; for large
    /// ones use ``forEachGeneratedBlock(length:seed:blockSize:_:)``. A negative `length` counts as 0.
    public static func generatedBytes(length: Int64, seed: UInt8) -> Data {
        generatedBytes(offset: 0, count: Int(max(0, length)), seed: seed)
    }

    /// `count` bytes of the generated stream for `seed`, starting at byte `offset`. Byte *i* of the stream does
    /// not depend on the body length, so this also gives the expected content of a byte range.
    public static func generatedBytes(offset: Int64, count: Int, seed: UInt8) -> Data {
        guard count > 0, offset >= 0 else { return Data() }
        var bytes = [UInt8](repeating: 0, count: count)
        bytes.withUnsafeMutableBytes { buffer in
            var position = UInt64(offset)
            var index = 0
            // Whole 8-byte words are stored at once; only a ragged start and end go byte by byte.
            while index < count {
                let word = generatedWord(position >> 3, seed: seed)
                let skip = Int(position & 7)
                if skip == 0 && count - index >= 8 {
                    buffer.storeBytes(of: word.littleEndian, toByteOffset: index, as: UInt64.self)
                    index += 8
                    position += 8
                    continue
                }
                let take = min(8 - skip, count - index)
                for byte in 0..<take {
                    buffer[index + byte] = UInt8(truncatingIfNeeded: word >> (UInt64(skip + byte) * 8))
                }
                index += take
                position += UInt64(take)
            }
        }
        return Data(bytes)
    }

    /// Calls `body` with consecutive blocks of the generated stream for `seed` until `length` bytes were
    /// delivered, never holding more than one block. `blockSize` defaults to 64 KiB, as the server uses;
    /// values below 1 count as 1. Use it to compute the expected content or digest of a large body.
    public static func forEachGeneratedBlock(
        length: Int64,
        seed: UInt8,
        blockSize: Int = TestBody.generatedBlockSize,
        _ body: (Data) throws -> Void
    ) rethrows {
        let size = Int64(max(1, blockSize))
        var offset: Int64 = 0
        while offset < length {
            let count = Int(min(size, length - offset))
            try body(generatedBytes(offset: offset, count: count, seed: seed))
            offset += Int64(count)
        }
    }

    /// One 64-bit word of the stream: SplitMix64 of the word index, keyed by the seed.
    private static func generatedWord(_ index: UInt64, seed: UInt8) -> UInt64 {
        var z = index &+ (UInt64(seed) &+ 1) &* 0xD6E8_FEB8_6659_FD93
        z = z &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
