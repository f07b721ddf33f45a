import Foundation

/// What the server kept of a request body it was told not to store (``TestServer/digestBodies(of:)``): its
/// length, a checksum, and its first and last bytes. Lets a test check a very large upload without the
/// server holding it in memory.
///
/// The checksum is FNV-1a over 8-byte little-endian words (a ragged end is zero-padded), so it does not depend on
/// how the body was split on the wire; compute the expected one with ``update(_:)`` and ``checksum``.
public struct TestBodyDigest: Sendable, Codable, Equatable {
    /// How many of the first and last bytes are kept: 64 KiB each.
    public static let keptBytes = 65_536

    /// The body's length in bytes.
    public private(set) var byteCount: Int64 = 0

    /// Up to the first ``keptBytes`` bytes of the body.
    public private(set) var head = Data()

    /// Up to the last ``keptBytes`` bytes of the body (they may overlap ``head`` for a short body).
    public private(set) var tail = Data()

    private var state: UInt64 = 0xcbf2_9ce4_8422_2325
    private var pending: [UInt8] = []

    /// An empty digest.
    public init() {}

    /// Adds the next bytes of the body.
    public mutating func update(_ bytes: some Collection<UInt8>) {
        byteCount += Int64(bytes.count)
        if head.count < Self.keptBytes {
            head.append(contentsOf: bytes.prefix(Self.keptBytes - head.count))
        }
        tail.append(contentsOf: bytes.suffix(Self.keptBytes))
        if tail.count > Self.keptBytes { tail = Data(tail.suffix(Self.keptBytes)) }

        var words = Array(bytes)
        if !pending.isEmpty {
            words.insert(contentsOf: pending, at: 0)
            pending = []
        }
        let whole = words.count - words.count % 8
        words.withUnsafeBytes { buffer in
            var offset = 0
            while offset < whole {
                let word = UInt64(littleEndian: buffer.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
                state = (state ^ word) &* 0x0000_0100_0000_01b3
                offset += 8
            }
        }
        pending = Array(words[whole...])
    }

    /// The checksum of everything added so far.
    public var checksum: UInt64 {
        guard !pending.isEmpty else { return state }
        var word: UInt64 = 0
        for (index, byte) in pending.enumerated() { word |= UInt64(byte) << (UInt64(index) * 8) }
        return (state ^ word) &* 0x0000_0100_0000_01b3
    }
}
