import Foundation

/// The ``AnyConnectionRequest/identifier`` of every run: version-4-shaped UUIDs made without a system
/// call.
///
/// Foundation's `UUID()` opens, reads and closes `/dev/urandom` on each call on Linux, and every request
/// took two (one per request object, one per run): the costliest system calls of a small GET's start
/// (docs/benchmarks.md). An identifier only has to tell runs apart, in logs and snapshots, never to be
/// unguessable: here a counter, unique within the process, is scrambled with a key drawn once from the
/// system's random source, so that identifiers of different processes differ too, and consecutive
/// identifiers do not look alike.
enum RunIdentifiers {
    private struct State {
        var counter: UInt64 = 0
        let key: (UInt64, UInt64)
    }

    private static let state: Locked<State> = {
        var random = SystemRandomNumberGenerator()
        return Locked(State(key: (random.next(), random.next())))
    }()

    /// A new identifier, different from every earlier one of the process.
    static func next() -> UUID {
        let (counter, key) = state.withLock { state in
            state.counter &+= 1
            return (state.counter, state.key)
        }
        // The low half is a bijection of the counter and the high half a function of it: two runs share
        // an identifier only if both halves also agree outside the six version and variant bits.
        let low = scrambled(counter &+ key.1)
        let high = scrambled(low ^ key.0)
        var bytes = (high.bigEndian, low.bigEndian)
        return withUnsafeMutableBytes(of: &bytes) { raw in
            raw[6] = (raw[6] & 0x0F) | 0x40  // version 4
            raw[8] = (raw[8] & 0x3F) | 0x80  // RFC 4122 variant
            return UUID(
                uuid: (
                    raw[0], raw[1], raw[2], raw[3], raw[4], raw[5], raw[6], raw[7], raw[8], raw[9], raw[10],
                    raw[11], raw[12], raw[13], raw[14], raw[15]
                ))
        }
    }

    /// SplitMix64's finaliser: a bijection of 64-bit values that spreads every input bit over the output.
    private static func scrambled(_ value: UInt64) -> UInt64 {
        var mixed = value
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }
}
