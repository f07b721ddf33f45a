import ConnectionKit
import ConnectionKitTesting
import Foundation
import Testing

/// What saving a large body costs in memory, read as the true peak (`VmHWM`) of a child process that does only
/// that (`ChildProcessHelper save-to-file`): the test process's own peak counts every test running beside it.
@Suite("Saved body memory", .offThePool, .timeLimit(.minutes(20)), .exclusive)
struct SavedBodyMemoryTests {
    @Test("saving 96 MiB while checking its SHA-256 holds at most 32 MiB more than before, at the true peak")
    func peakStaysBounded() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        let scratch = try Scratch()
        defer { scratch.remove() }
        let length: Int64 = 96 * 1_024 * 1_024
        server.route("GET", "/big.bin") { _ in TestResponse(body: .generated(length: length, seed: 7)) }
        server.route("GET", "/small.bin") { _ in TestResponse(body: .generated(length: 65_536, seed: 7)) }
        let digest = try #require(
            try await FileChecks.sha256sumOfGenerated(length: length, seed: 7), "sha256sum missing")
        let transport = ConnectionTransport.default.name == "libcurl" ? "libcurl" : "urlSession"

        let child = try ChildProcess([
            "save-to-file", server.url("/big.bin").absoluteString, server.url("/small.bin").absoluteString,
            scratch.file("big.bin").path, digest, transport,
        ])
        let (status, printed) = await child.finish(timeout: 300)

        #expect(status == 0, "the helper failed: \(printed)")
        let line = printed.split(separator: "\n").first { $0.hasPrefix("GROWTH ") }
        let growth = try #require(line.flatMap { Int64($0.dropFirst("GROWTH ".count)) }, "printed: \(printed)")
        print("SavedBodyMemoryTests: \(transport), peak growth \(growth / 1_024) MiB saving \(length >> 20) MiB")
        // The writer hashes every piece, so it is slower than loopback: a queue in front of it that does not
        // hold the transfer back grows by most of the body. Bounded, the pieces waiting stay within a few MiB.
        #expect(growth < 32 * 1_024, "the peak resident size grew by \(growth / 1_024) MiB")
    }
}
