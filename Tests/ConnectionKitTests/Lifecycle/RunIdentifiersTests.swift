import Foundation
import Testing

@testable import ConnectionKit

/// Run identifiers are made from a scrambled counter instead of Foundation's `UUID()` (which reads
/// `/dev/urandom` on every call on Linux): they must still tell every run apart, from any thread, and
/// read as the version-4 UUIDs they stand in for.
@Suite("Run identifiers", .offThePool, .timeLimit(.minutes(2)))
struct RunIdentifiersTests {
    @Test("200,000 identifiers made on 4 threads at once are all different")
    func identifiersNeverRepeat() async {
        let batches = await withTaskGroup(of: [UUID].self) { group in
            for _ in 0..<4 {
                group.addTask { (0..<50_000).map { _ in RunIdentifiers.next() } }
            }
            var all: [[UUID]] = []
            for await batch in group { all.append(batch) }
            return all
        }
        let identifiers = batches.flatMap { $0 }
        #expect(identifiers.count == 200_000)
        #expect(Set(identifiers).count == identifiers.count)
    }

    @Test("every identifier carries version 4 and the RFC 4122 variant")
    func identifiersAreVersionFour() {
        for _ in 0..<1_000 {
            let text = RunIdentifiers.next().uuidString
            let characters = Array(text)
            #expect(characters[14] == "4", "\(text)")
            #expect("89AB".contains(characters[19]), "\(text)")
        }
    }

    @Test("each start gives the request a new identifier, and consecutive ones share no prefix")
    func consecutiveIdentifiersDiffer() {
        let first = RunIdentifiers.next().uuidString
        let second = RunIdentifiers.next().uuidString
        #expect(first != second)
        #expect(first.prefix(8) != second.prefix(8))
    }
}
