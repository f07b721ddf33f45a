import Foundation

/// A streaming SHA-256 (FIPS 180-4): feed bytes with `update`, read the digest with `finalize`.
///
/// ConnectionKit carries its own because CryptoKit does not exist on Linux and the package has no
/// dependencies; it checks downloads against ``AnyConnectionRequest/expectedSHA256``.
struct SHA256 {
    private static let roundConstants: [UInt32] = [
        0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
        0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
        0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
        0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
        0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
        0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
        0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
        0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
    ]

    private var state: (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32) = (
        0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19
    )
    /// Bytes of an incomplete 64-byte block, waiting for more input.
    private var pending: [UInt8] = []
    private var messageLength: UInt64 = 0

    init() {
        pending.reserveCapacity(64)
    }

    /// Hashes `bytes` in one go.
    static func hash<Bytes: Sequence>(_ bytes: Bytes) -> [UInt8] where Bytes.Element == UInt8 {
        var hasher = SHA256()
        hasher.update(Array(bytes))
        return hasher.finalize()
    }

    /// Adds bytes to the message.
    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard var cursor = bytes.baseAddress, bytes.count > 0 else { return }
        var remaining = bytes.count
        messageLength &+= UInt64(remaining)
        if !pending.isEmpty {
            let take = min(64 - pending.count, remaining)
            pending.append(contentsOf: UnsafeRawBufferPointer(start: cursor, count: take))
            cursor += take
            remaining -= take
            guard pending.count == 64 else { return }
            pending.withUnsafeBytes { block in
                if let start = block.baseAddress { compress(block: start) }
            }
            pending.removeAll(keepingCapacity: true)
        }
        while remaining >= 64 {
            compress(block: cursor)
            cursor += 64
            remaining -= 64
        }
        if remaining > 0 {
            pending.append(contentsOf: UnsafeRawBufferPointer(start: cursor, count: remaining))
        }
    }

    /// Adds bytes to the message.
    mutating func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { update($0) }
    }

    /// Pads the message and returns the 32-byte digest. The hasher is spent afterwards.
    mutating func finalize() -> [UInt8] {
        let bitLength = messageLength &* 8
        var tail = pending
        tail.append(0x80)
        while tail.count % 64 != 56 { tail.append(0) }
        for shift in stride(from: 56, through: 0, by: -8) {
            tail.append(UInt8(truncatingIfNeeded: bitLength >> UInt64(shift)))
        }
        tail.withUnsafeBytes { buffer in
            guard let start = buffer.baseAddress else { return }
            for offset in stride(from: 0, to: buffer.count, by: 64) {
                compress(block: start + offset)
            }
        }
        pending = []
        let words = [state.0, state.1, state.2, state.3, state.4, state.5, state.6, state.7]
        return words.flatMap { word in (0..<4).map { UInt8(truncatingIfNeeded: word >> UInt32(24 - 8 * $0)) } }
    }

    private mutating func compress(block: UnsafeRawPointer) {
        // The message schedule lives on the stack: one heap allocation per block would halve the speed.
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { w in
            for index in 0..<16 {
                w[index] = UInt32(bigEndian: block.loadUnaligned(fromByteOffset: index * 4, as: UInt32.self))
            }
            for index in 16..<64 {
                let s0 = w[index - 15].rotatedRight(7) ^ w[index - 15].rotatedRight(18) ^ (w[index - 15] >> 3)
                let s1 = w[index - 2].rotatedRight(17) ^ w[index - 2].rotatedRight(19) ^ (w[index - 2] >> 10)
                w[index] = w[index - 16] &+ s0 &+ w[index - 7] &+ s1
            }
            var (a, b, c, d, e, f, g, h) = state
            Self.roundConstants.withUnsafeBufferPointer { k in
                for index in 0..<64 {
                    let s1 = e.rotatedRight(6) ^ e.rotatedRight(11) ^ e.rotatedRight(25)
                    let choice = (e & f) ^ (~e & g)
                    let temp1 = h &+ s1 &+ choice &+ k[index] &+ w[index]
                    let s0 = a.rotatedRight(2) ^ a.rotatedRight(13) ^ a.rotatedRight(22)
                    let majority = (a & b) ^ (a & c) ^ (b & c)
                    let temp2 = s0 &+ majority
                    h = g
                    g = f
                    f = e
                    e = d &+ temp1
                    d = c
                    c = b
                    b = a
                    a = temp1 &+ temp2
                }
            }
            state = (
                state.0 &+ a, state.1 &+ b, state.2 &+ c, state.3 &+ d, state.4 &+ e, state.5 &+ f, state.6 &+ g,
                state.7 &+ h
            )
        }
    }

    /// Lowercase hexadecimal, as `sha256sum` prints it.
    static func hex(_ digest: [UInt8]) -> String {
        // Written as UTF-8 bytes straight into the string's storage: a cache lookup computes a key with it.
        String(unsafeUninitializedCapacity: digest.count * 2) { buffer in
            for (index, byte) in digest.enumerated() {
                buffer[2 * index] = hexDigits[Int(byte >> 4)]
                buffer[2 * index + 1] = hexDigits[Int(byte & 0x0f)]
            }
            return digest.count * 2
        }
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// The bytes of a hexadecimal digest (any case, surrounding spaces ignored), or `nil` when it is
    /// not 64 hexadecimal digits.
    static func digest(fromHex text: String) -> [UInt8]? {
        let digits = Array(text.trimmingCharacters(in: .whitespacesAndNewlines).utf8)
        guard digits.count == 64 else { return nil }
        return bytes(fromHexDigits: digits)
    }

    /// The bytes of `digits`, two hexadecimal digits a byte (`A`–`F` too unless `lowercaseOnly`), or `nil` for
    /// an odd count or anything else.
    static func bytes(fromHexDigits digits: [UInt8], lowercaseOnly: Bool = false) -> [UInt8]? {
        guard digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        var index = 0
        while index < digits.count {
            guard let high = hexValue(digits[index], lowercaseOnly: lowercaseOnly),
                let low = hexValue(digits[index + 1], lowercaseOnly: lowercaseOnly)
            else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }

    private static func hexValue(_ digit: UInt8, lowercaseOnly: Bool) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F") where !lowercaseOnly: return digit - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}

extension UInt32 {
    fileprivate func rotatedRight(_ count: UInt32) -> UInt32 {
        (self >> count) | (self << (32 - count))
    }
}
