import Foundation
import Testing

@testable import ConnectionKit

@Suite("SHA-256", .offThePool, .timeLimit(.minutes(3)))
struct SHA256Tests {
    @Test("FIPS 180-4 / NIST test vectors")
    func knownVectors() {
        #expect(SHA256.hex(SHA256.hash([])) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(
            SHA256.hex(SHA256.hash(Array("abc".utf8)))
                == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(
            SHA256.hex(SHA256.hash(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)))
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        let long =
            "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu"
        #expect(
            SHA256.hex(SHA256.hash(Array(long.utf8)))
                == "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1")
    }

    @Test("one million 'a', fed in uneven pieces")
    func millionAInPieces() {
        var hasher = SHA256()
        let piece = [UInt8](repeating: UInt8(ascii: "a"), count: 997)
        var fed = 0
        while fed < 1_000_000 {
            let count = min(piece.count, 1_000_000 - fed)
            hasher.update(Array(piece[0..<count]))
            fed += count
        }
        #expect(SHA256.hex(hasher.finalize()) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test("every split of a message gives the same digest as one update")
    func splitsAgree() {
        let message = (0..<200).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        let whole = SHA256.hash(message)
        for split in [0, 1, 55, 56, 63, 64, 65, 127, 128, 199, 200] {
            var hasher = SHA256()
            hasher.update(Array(message[..<split]))
            hasher.update(Array(message[split...]))
            #expect(hasher.finalize() == whole, "split at \(split)")
        }
        // Lengths around the padding boundary.
        #expect(
            SHA256.hex(SHA256.hash([UInt8](repeating: 0, count: 55)))
                == "02779466cdec163811d078815c633f21901413081449002f24aa3e80f0b88ef7")
        #expect(
            SHA256.hex(SHA256.hash([UInt8](repeating: 0, count: 64)))
                == "f5a5fd42d16a20302798ef6ed309979b43003d2320d9f0e8ea9831a92759fb4b")
    }

    @Test("hex digests parse in any case and reject anything else")
    func hexParsing() {
        let digest = "E3B0C44298FC1C149AFBF4C8996FB92427AE41E4649B934CA495991B7852B855"
        #expect(SHA256.digest(fromHex: digest) == SHA256.hash([]))
        #expect(SHA256.digest(fromHex: " \(digest.lowercased())\n") == SHA256.hash([]))
        #expect(SHA256.digest(fromHex: String(digest.dropLast())) == nil)
        #expect(SHA256.digest(fromHex: String(digest.dropLast()) + "g") == nil)
    }
}
