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
        bytes.withUnsafeMutableBufferPointer { buffer in
            var wordIndex = UInt64(offset) >> 3
            var word = generatedWord(wordIndex, seed: seed)
            var position = UInt64(offset)
            for index in 0..<count {
                let currentWord = position >> 3
                if currentWord != wordIndex {
                    wordIndex = currentWord
                    word = generatedWord(wordIndex, seed: seed)
                }
                buffer[index] = UInt8(truncatingIfNeeded: word >> ((position & 7) * 8))
                position += 1
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
