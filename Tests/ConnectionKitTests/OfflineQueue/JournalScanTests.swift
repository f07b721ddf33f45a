import Foundation
import Testing

@testable import ConnectionKit

/// The journal scan stays linear in the segment's size, whatever its bytes (headers that overlap claim
/// payloads whose sum is quadratic), and finds the same records as checking each header on its own.
@Suite("The offline journal's scan: linear, whatever the segment holds", .offThePool, .timeLimit(.minutes(2)))
struct JournalScanTests {
    /// `count` bytes of record headers 13 bytes apart, each claiming everything after it as its payload,
    /// with a checksum that does not match: every offset is a candidate whose payload runs to the end.
    static func overlappingHeaders(count: Int) -> Data {
        var bytes = [UInt8](repeating: 0, count: count)
        var offset = 0
        while count - offset >= JournalRecord.headerSize {
            let length = UInt32(count - offset - JournalRecord.headerSize)
            bytes.replaceSubrange(offset..<(offset + 4), with: JournalRecord.magic)
            bytes[offset + 4] = 1
            withUnsafeBytes(of: length.littleEndian) { bytes.replaceSubrange((offset + 5)..<(offset + 9), with: $0) }
            offset += JournalRecord.headerSize
        }
        return Data(bytes)
    }

    @Test("a 4 MiB segment of overlapping headers is scanned in time proportional to its size")
    func overlappingHeadersScanLinearly() async {
        let kept = JournalRecord.entry(sequence: 7, json: Data("{\"id\":\"kept\"}".utf8))
        let entry = kept.framed
        // Seconds of CPU in a debug build: on a thread of its own, not the test's pool thread (see
        // `onOwnThread`), which the other tests of the parallel run need meanwhile.
        let (segmentSize, crafted, elapsed, records, damaged, tail) = await onOwnThread {
            let crafted = Self.overlappingHeaders(count: 4 * 1024 * 1024)
            let segment = entry + crafted + entry
            let started = Self.threadCPUTime()
            let scan = JournalRecord.scan(segment)
            let elapsed = Self.threadCPUTime() - started
            return (segment.count, crafted.count, elapsed, scan.records.map(\.record), scan.damaged, scan.tail)
        }
        // The linear scan takes well under a second of CPU per MiB in a debug build; checking each header on its
        // own reads about 650 GB here, hours on any machine. Four seconds per MiB tells the two apart without
        // timing anything finely. The scanning thread's CPU time, not the wall clock: 24 tests running at once
        // on 2 cores stretched the wall clock of a linear scan to 17.8 s.
        let bound = 4 * Double(segmentSize) / 1_048_576 * testTimeScale
        #expect(elapsed < bound, "scanned \(segmentSize) bytes in \(elapsed) s")
        #expect(records == [kept, kept])
        #expect(damaged == [entry.count..<(entry.count + crafted)])
        #expect(tail == nil)
    }

    @Test("the one-pass checksums agree with checking each span on its own, spans overlapping or empty")
    func spansAgreeWithDirectChecksums() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            let bytes = (0..<Int.random(in: 0...300, using: &generator)).map { _ in
                UInt8.random(in: 0...255, using: &generator)
            }
            var spans: [CRC32.Span] = []
            var expected: [Bool] = []
            for _ in 0..<Int.random(in: 0...40, using: &generator) {
                let start = Int.random(in: 0...bytes.count, using: &generator)
                let end = Int.random(in: start...bytes.count, using: &generator)
                let checksum = CRC32.checksum(bytes[start..<end])
                let whole = Bool.random(using: &generator)
                spans.append(CRC32.Span(bytes: start..<end, checksum: whole ? checksum : checksum ^ 0x0100_0000))
                expected.append(whole)
            }
            #expect(bytes.withUnsafeBytes { CRC32.matches(spans, in: $0) } == expected)
        }
    }

    @Test("records, zero padding, damage between records and a torn tail are told apart as before")
    func recordsDamageAndTail() {
        let first = JournalRecord.attempts(sequence: 1, attempts: 2)
        let second = JournalRecord.resolved([1, 2])
        var bytes = first.framed + Data(count: 5) + Data("garbage".utf8) + second.framed
        bytes += first.framed.prefix(10)
        let scan = JournalRecord.scan(bytes)
        #expect(scan.records.map(\.record) == [first, second])
        let garbageStart = first.framed.count + 5
        #expect(scan.damaged == [first.framed.count..<(garbageStart + 7)])
        #expect(scan.tail == (bytes.count - 10)..<bytes.count)
    }
    /// The CPU time this thread has used, in seconds.
    private static func threadCPUTime() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
