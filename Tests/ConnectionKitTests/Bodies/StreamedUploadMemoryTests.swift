import ConnectionKit
import ConnectionKitTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A gigabyte streamed from an `AsyncSequence`, its peak memory read in a child process that does only that upload
/// (this process's peak counts every test running beside it).
@Suite("A 1 GiB streamed upload", .offThePool, .serialized, .exclusive, .timeLimit(.minutes(10)))
struct StreamedUploadMemoryTests {
    static let count: Int64 = 1 << 30
    static let chunkSize = 64 * 1024

    /// Chunk `index` of ChildProcessHelper's `streamed-upload` body: a fixed pattern with the index in its first
    /// 8 bytes (little-endian).
    static func chunk(_ index: Int64) -> Data {
        var chunk = Data((0..<chunkSize).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
        withUnsafeBytes(of: index.littleEndian) { chunk.replaceSubrange(0..<8, with: $0) }
        return chunk
    }

    @Test("1 GiB of unknown length over libcurl: every byte arrives, memory grows by less than 40 MiB")
    func oneGibibyteWithBoundedMemory() async throws {
        _ = try ConnectionTransport.libcurl()
        let server = try TestServer.started()
        defer { server.stop() }
        server.digestBodies(of: "/upload")
        server.route("POST", "/upload") { _ in .text("stored") }
        server.route("POST", "/warm-up") { _ in .text("warm") }
        let child = try ChildProcess([
            "streamed-upload", server.url("/upload").absoluteString, server.url("/warm-up").absoluteString,
            "\(Self.count)",
        ])
        let (status, printed) = await child.finish(timeout: 540)
        #expect(status == 0, "the helper failed: \(printed)")
        let lines = printed.split(separator: "\n").map(String.init)
        func value(_ label: String) -> String? {
            lines.first { $0.hasPrefix(label + " ") }.map { String($0.dropFirst(label.count + 1)) }
        }
        #expect(value("ANSWER") == "stored", "printed: \(printed)")
        #expect(value("PROGRESS") == "\(Self.count) \(Self.count)", "printed: \(printed)")
        let growth = try #require(value("GROWTH").flatMap { Int64($0) }, "printed: \(printed)")
        let growthMiB = Double(growth) / 1024
        print("StreamedUploadMemoryTests: 1 GiB in \(value("SECONDS") ?? "?") s, peak growth \(growthMiB) MiB")
        #expect(growthMiB < 40, "resident memory grew by \(growthMiB) MiB during a 1 GiB streamed upload")

        let received = try #require(server.receivedRequests("/upload").first)
        #expect(received.header("Transfer-Encoding")?.lowercased() == "chunked")
        let digest = try #require(received.bodyDigest)
        #expect(digest.byteCount == Self.count)
        #expect(digest.head == Self.chunk(0))
        #expect(digest.tail == Self.chunk(Self.count / Int64(Self.chunkSize) - 1))
    }
}
