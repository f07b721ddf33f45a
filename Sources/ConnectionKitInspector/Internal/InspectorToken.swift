import Foundation

/// The secret every request must carry: 128 random bits as 32 hex digits.
struct InspectorToken: Sendable, Equatable {
    let text: String

    /// A new token from the system's cryptographically secure generator.
    static func random() -> InspectorToken {
        var generator = SystemRandomNumberGenerator()
        let words = [generator.next() as UInt64, generator.next() as UInt64]
        return InspectorToken(text: words.map { String(format: "%016llx", $0) }.joined())
    }

    /// Compares in time independent of where `candidate` differs.
    func matches(_ candidate: String?) -> Bool {
        guard let candidate else { return false }
        let expected = Array(text.utf8)
        let given = Array(candidate.utf8)
        var difference = expected.count ^ given.count
        for index in 0..<expected.count {
            difference |= Int(expected[index] ^ (index < given.count ? given[index] : 0))
        }
        return difference == 0
    }
}
