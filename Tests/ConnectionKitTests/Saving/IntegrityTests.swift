import ConnectionKit
import ConnectionKitTesting
import Foundation
import Testing

@Suite("Save to file: size and SHA-256 checks", .offThePool, .timeLimit(.minutes(1)))
struct IntegrityTests {
    let queue = DispatchQueue(label: "IntegrityTests.callbacks")
    let body = TestBody.generatedBytes(length: 1_000_000, seed: 21)

    private func download(size: Int64?, digest: String?, scratch: Scratch) async throws
        -> (Result<URL, any Error>, TestServer)
    {
        let server = try TestServer.started()
        let body = self.body
        server.route("GET", "/file") { _ in TestResponse(body: .data(body)) }
        let download = CheckedDownload(
            from: server.url("/file"), to: scratch.file("file.bin"), size: size, digest: digest)
        download.callbackQueue = queue
        return (await outcome(download), server)
    }

    /// The integrity failure inside a `fileSystem` error.
    private func integrityFailure(_ result: Result<URL, any Error>) -> FileIntegrityError? {
        guard let error = connectionError(result), error.kind == .fileSystem, let underlying = error.underlyingError
        else { return nil }
        return underlying as? FileIntegrityError
    }

    @Test("a matching size and SHA-256 pass")
    func matching() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let digest = try #require(try await FileChecks.sha256sumOfGenerated(length: 1_000_000, seed: 21))
        let (result, server) = try await download(size: 1_000_000, digest: digest.uppercased(), scratch: scratch)
        defer { server.stop() }
        #expect(try result.get() == scratch.file("file.bin"))
        #expect(try Data(contentsOf: scratch.file("file.bin")) == body)
    }

    @Test("a wrong SHA-256 fails clearly and leaves nothing")
    func wrongDigest() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let wrong = String(repeating: "ab", count: 32)
        let (result, server) = try await download(size: nil, digest: wrong, scratch: scratch)
        defer { server.stop() }
        let failure = integrityFailure(result)
        #expect(failure?.check == .sha256)
        #expect(failure?.expected == wrong)
        #expect(connectionError(result)?.localizedDescription.contains("SHA-256") == true)
        #expect(scratch.contents().isEmpty)
    }

    @Test("a wrong size fails clearly and leaves nothing")
    func wrongSize() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let (result, server) = try await download(size: 999_999, digest: nil, scratch: scratch)
        defer { server.stop() }
        let failure = integrityFailure(result)
        #expect(failure == FileIntegrityError(check: .size, expected: "999999", actual: "1000000"))
        #expect(scratch.contents().isEmpty)
    }

    @Test("a digest that is not 64 hex digits fails with invalidRequest before sending")
    func malformedDigest() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let (result, server) = try await download(size: nil, digest: "abc", scratch: scratch)
        defer { server.stop() }
        if case .invalidRequest = connectionError(result)?.kind {
        } else {
            Issue.record("expected invalidRequest, got \(result)")
        }
        #expect(server.hits("/file") == 0)
    }

    @Test("a resumed download is checked over the whole file")
    func resumedDownloadIsHashedWhole() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        let scratch = try Scratch()
        defer { scratch.remove() }
        let origin = FileOrigin(data: body, etag: "\"i1\"", cutAfter: 400_000)
        server.route("GET", "/file") { origin.respond(to: $0) }
        let digest = try #require(try await FileChecks.sha256sumOfGenerated(length: 1_000_000, seed: 21))
        let destination = scratch.file("file.bin")

        let first = CheckedResumableDownload(from: server.url("/file"), to: destination, digest: digest)
        first.callbackQueue = queue
        #expect(connectionError(await outcome(first)) != nil)
        let second = CheckedResumableDownload(from: server.url("/file"), to: destination, digest: digest)
        second.callbackQueue = queue
        _ = try await second.value()

        #expect(server.receivedRequests("/file").last?.header("Range") != nil)
        #expect(try Data(contentsOf: destination) == body)
    }
}

/// A resumable download with a declared digest.
final class CheckedResumableDownload: DownloadRequest, @unchecked Sendable {
    // Safe: `digest` is a `let`, set in init.
    let digest: String

    init(from url: URL, to destination: URL, digest: String) {
        self.digest = digest
        super.init(from: url, to: destination)
    }

    override var resumesInterruptedDownloads: Bool { true }
    override var expectedSHA256: String? { digest }
}
