import ConnectionKitTesting
import Foundation
import Testing

@Suite(.timeLimit(.minutes(2))) struct GeneratedBytesTests {
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

extension GeneratedBytesTests {
    @Test func unalignedSlicesMatchTheStream() {
        let whole = TestBody.generatedBytes(length: 64, seed: 200)
        for offset in 0..<16 {
            for count in [0, 1, 3, 7, 8, 9, 17, 40] where offset + count <= 64 {
                let slice = TestBody.generatedBytes(offset: Int64(offset), count: count, seed: 200)
                #expect(slice == whole[offset..<(offset + count)])
            }
        }
    }
}
