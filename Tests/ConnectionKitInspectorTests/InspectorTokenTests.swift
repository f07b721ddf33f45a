import ConnectionKitInspector
import Foundation
import Testing

/// The token is the inspector's one secret: a check of its length cannot tell 128 random bits from 64
/// random bits padded with zeros, or from a token that never changes.
@Suite(.timeLimit(.minutes(1))) struct InspectorTokenTests {
    @Test func everyHexDigitOfTheTokenIsRandomAtEachStart() throws {
        let inspector = ConnectionInspector()
        defer { inspector.stop() }
        var tokens: [[Character]] = []
        for _ in 0..<16 {
            let url = try inspector.start()
            let token = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first?.value ?? ""
            #expect(token.count == 32 && token.allSatisfy(\.isHexDigit), "128 bits as 32 hex digits: \(token)")
            tokens.append(Array(token))
            inspector.stop()
        }
        #expect(Set(tokens.map { String($0) }).count == tokens.count, "a new token at each start")
        // A random hex digit is the same in 16 tokens with probability 16^-15 (about 1e-18): one
        // that is, at any of the 32 positions, does not come from the random generator.
        for position in 0..<32 {
            let digits = Set(tokens.compactMap { position < $0.count ? $0[position] : nil })
            #expect(digits.count > 1, "hex digit \(position + 1) is the same in 16 tokens")
        }
    }
}
