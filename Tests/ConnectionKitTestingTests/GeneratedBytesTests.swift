import ConnectionKitTesting
import Foundation
import Testing

@Suite struct GeneratedBytesTests {
    @Test func generatedBytesAreDeterministicAndSeeded() {
        let first = TestBody.generatedBytes(length: 1_000, seed: 7)
        #expect(first.count == 1_000)
        #expect(first == TestBody.generatedBytes(length: 1_000, seed: 7))
        #expect(first != TestBody.generatedBytes(length: 1_000, seed: 8))
    }

    @Test func offsetsAndBlocksAgreeWithTheWholeStream() {
        let whole = TestBody.generatedBytes(length: 200_003, seed: 3)
        #expect(TestBody.generatedBytes(offset: 13, count: 100, seed: 3) == whole[13..<113])
        var streamed = Data()
        TestBody.forEachGeneratedBlock(length: 200_003, seed: 3, blockSize: 65_536) { streamed.append($0) }
        #expect(streamed == whole)
    }
}
