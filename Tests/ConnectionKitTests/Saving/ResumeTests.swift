import ConnectionKit
import ConnectionKitTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Serves `current` as a static file server would (ranges, validators); the first `faultyRequests`
/// requests are cut after `cutAfter` body bytes.
final class FileOrigin: @unchecked Sendable {
    // Safe: every stored property is only touched while `lock` is held.
    private let lock = NSLock()
    private var data: Data
    private var etag: String?
    private var lastModified: String?
    private var honoursRange = true
    private var faultsLeft: Int
    private let cutAfter: Int

    init(data: Data, etag: String?, lastModified: String? = nil, faultyRequests: Int = 1, cutAfter: Int) {
        self.data = data
        self.etag = etag
        self.lastModified = lastModified
        self.faultsLeft = faultyRequests
        self.cutAfter = cutAfter
    }

    /// Replaces the file (a new version on the server).
    func update(data: Data, etag: String?) {
        lock.lock()
        (self.data, self.etag) = (data, etag)
        lock.unlock()
    }

    /// Makes the server answer every request with the whole file, as one that ignores `Range`.
    func ignoreRanges() {
        lock.lock()
        honoursRange = false
        lock.unlock()
    }

    func respond(to request: TestRequest) -> TestResponse {
        lock.lock()
        defer { lock.unlock() }
        var response: TestResponse
        if honoursRange {
            response = .ranged(data, request: request, etag: etag, lastModified: lastModified)
        } else {
            var headers: [TestHeader] = []
            if let etag { headers.append(TestHeader("ETag", etag)) }
            response = TestResponse(headers: headers, body: .data(data))
        }
        if faultsLeft > 0 {
            faultsLeft -= 1
            response.fault = .closeAfterBodyBytes(cutAfter)
        }
        return response
    }
}

@Suite("Save to file: resuming", .offThePool, .timeLimit(.minutes(1)))
struct ResumeTests {
    let queue = DispatchQueue(label: "ResumeTests.callbacks")
    let length = 3 * 1_024 * 1_024

    /// Runs one download to `destination`, expecting it to be cut; returns the partial file's size.
    private func interruptedRun(_ url: URL, to destination: URL, scratch: Scratch) async throws -> Int64 {
        let first = ResumableDownload(from: url, to: destination)
        first.callbackQueue = queue
        #expect(connectionError(await outcome(first)) != nil, "the first run should be cut")
        let partial = scratch.file(".\(destination.lastPathComponent).ckpart")
        let size = (try FileManager.default.attributesOfItem(atPath: partial.path)[.size] as? NSNumber)?.int64Value
        #expect(!FileManager.default.fileExists(atPath: destination.path))
        return size ?? 0
    }

    @Test("resume after a server drop midway sends the right Range and ends with the right bytes")
    func resumeAfterDrop() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        let scratch = try Scratch()
        defer { scratch.remove() }
        let data = TestBody.generatedBytes(length: Int64(length), seed: 11)
        let origin = FileOrigin(data: data, etag: "\"v1\"", cutAfter: 1_000_000)
        server.route("GET", "/file.bin") { origin.respond(to: $0) }
        let destination = scratch.file("file.bin")

        let kept = try await interruptedRun(server.url("/file.bin"), to: destination, scratch: scratch)
        #expect(kept > 0 && kept <= 1_000_000)

        let second = ResumableDownload(from: server.url("/file.bin"), to: destination)
        second.callbackQueue = queue
        let progress = Collected<TransferProgress>()
        second.progressHandler = { progress.append($0) }
        _ = try await second.value()

        let requests = server.receivedRequests("/file.bin")
        #expect(requests.count == 2)
        #expect(requests.last?.header("Range") == "bytes=\(kept)-")
        #expect(requests.last?.header("If-Range") == "\"v1\"")
        #expect(try Data(contentsOf: destination) == data)
        #expect(scratch.contents() == ["file.bin"])
        // Progress covers the whole file: it starts past the resumed part and ends at 1.0.
        let downloads = progress.all.filter { $0.direction == .download }
        #expect(downloads.first.map { $0.completedBytes >= kept } == true)
        #expect(downloads.last?.fractionCompleted == 1.0)
        #expect(downloads.last?.expectedBytes == Int64(length))
    }

    @Test("a retry within the same run resumes too")
    func retryResumes() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        let scratch = try Scratch()
        defer { scratch.remove() }
        let data = TestBody.generatedBytes(length: Int64(length), seed: 12)
        let origin = FileOrigin(data: data, etag: "\"r1\"", cutAfter: 800_000)
        server.route("GET", "/file.bin") { origin.respond(to: $0) }
        let destination = scratch.file("file.bin")

        let download = RetryingResumableDownload(from: server.url("/file.bin"), to: destination)
        download.callbackQueue = queue
        _ = try await download.value()

        let requests = server.receivedRequests("/file.bin")
        #expect(requests.count == 2)
        #expect(requests.last?.header("Range")?.hasPrefix("bytes=") == true)
        #expect(requests.last?.header("Range") != "bytes=0-")
        #expect(try Data(contentsOf: destination) == data)
        #expect(scratch.contents() == ["file.bin"])
    }

    @Test("a server that ignores Range: the file starts over and ends with the right bytes")
    func serverIgnoresRange() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        let scratch = try Scratch()
        defer { scratch.remove() }
        let data = TestBody.generatedBytes(length: Int64(length), seed: 13)
        let origin = FileOrigin(data: data, etag: "\"v1\"", cutAfter: 1_000_000)
        origin.ignoreRanges()
        server.route("GET", "/file.bin") { origin.respond(to: $0) }
        let destination = scratch.file("file.bin")

        let kept = try await interruptedRun(server.url("/file.bin"), to: destination, scratch: scratch)
        let second = ResumableDownload(from: server.url("/file.bin"), to: destination)
        second.callbackQueue = queue
        _ = try await second.value()

        #expect(server.receivedRequests("/file.bin").last?.header("Range") == "bytes=\(kept)-")
        #expect(try Data(contentsOf: destination) == data)
        #expect(scratch.contents() == ["file.bin"])
    }

    @Test("a file whose ETag changed: the stale part is dropped and the new file saved whole")
    func etagChanged() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        let scratch = try Scratch()
        defer { scratch.remove() }
        let old = TestBody.generatedBytes(length: Int64(length), seed: 14)
        let new = TestBody.generatedBytes(length: Int64(length) + 12_345, seed: 15)
        let origin = FileOrigin(data: old, etag: "\"v1\"", cutAfter: 1_000_000)
        server.route("GET", "/file.bin") { origin.respond(to: $0) }
        let destination = scratch.file("file.bin")

        _ = try await interruptedRun(server.url("/file.bin"), to: destination, scratch: scratch)
        origin.update(data: new, etag: "\"v2\"")
        let second = ResumableDownload(from: server.url("/file.bin"), to: destination)
        second.callbackQueue = queue
        _ = try await second.value()

        #expect(server.receivedRequests("/file.bin").last?.header("If-Range") == "\"v1\"")
        #expect(try Data(contentsOf: destination) == new)
        #expect(scratch.contents() == ["file.bin"])
    }

    @Test("416 (the file shrank below the partial part): starts over without Range")
    func rangeNotSatisfiable() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        let scratch = try Scratch()
        defer { scratch.remove() }
        let data = TestBody.generatedBytes(length: Int64(length), seed: 16)
        let origin = FileOrigin(data: data, etag: "\"v1\"", cutAfter: 1_000_000)
        server.route("GET", "/file.bin") { origin.respond(to: $0) }
        let destination = scratch.file("file.bin")

        _ = try await interruptedRun(server.url("/file.bin"), to: destination, scratch: scratch)
        let small = Data("tiny".utf8)
        origin.update(data: small, etag: "\"v1\"")
        let second = ResumableDownload(from: server.url("/file.bin"), to: destination)
        second.callbackQueue = queue
        _ = try await second.value()

        let requests = server.receivedRequests("/file.bin")
        try #require(requests.count == 3)
        #expect(requests[1].header("Range") != nil)
        #expect(requests[2].header("Range") == nil && requests[2].header("If-Range") == nil)
        #expect(try Data(contentsOf: destination) == small)
        #expect(scratch.contents() == ["file.bin"])
    }

    @Test("Last-Modified is the validator when there is no strong ETag")
    func lastModifiedValidator() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        let scratch = try Scratch()
        defer { scratch.remove() }
        let data = TestBody.generatedBytes(length: Int64(length), seed: 17)
        let date = "Mon, 01 Jan 2024 00:00:00 GMT"
        let origin = FileOrigin(data: data, etag: nil, lastModified: date, cutAfter: 1_000_000)
        server.route("GET", "/file.bin") { origin.respond(to: $0) }
        let destination = scratch.file("file.bin")

        _ = try await interruptedRun(server.url("/file.bin"), to: destination, scratch: scratch)
        let second = ResumableDownload(from: server.url("/file.bin"), to: destination)
        second.callbackQueue = queue
        _ = try await second.value()

        #expect(server.receivedRequests("/file.bin").last?.header("If-Range") == date)
        #expect(try Data(contentsOf: destination) == data)
    }

    @Test("a download that does not opt in never sends Range, even with an old partial file around")
    func notOptedIn() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        let scratch = try Scratch()
        defer { scratch.remove() }
        let data = TestBody.generatedBytes(length: Int64(length), seed: 18)
        let origin = FileOrigin(data: data, etag: "\"v1\"", cutAfter: 1_000_000)
        server.route("GET", "/file.bin") { origin.respond(to: $0) }
        let destination = scratch.file("file.bin")
        _ = try await interruptedRun(server.url("/file.bin"), to: destination, scratch: scratch)

        let plain = DownloadRequest(from: server.url("/file.bin"), to: destination)
        plain.callbackQueue = queue
        _ = try await plain.value()

        #expect(server.receivedRequests("/file.bin").last?.header("Range") == nil)
        #expect(try Data(contentsOf: destination) == data)
    }
}

/// A resumable download retried at once after a transport error.
final class RetryingResumableDownload: DownloadRequest, @unchecked Sendable {
    // Safe: no stored state of its own.
    override var resumesInterruptedDownloads: Bool { true }
    override func retryDecision(for error: ConnectionError, attempt: Int, response: ConnectionResponse?)
        -> RetryDecision
    {
        attempt < 3 ? .retry(after: 0) : .doNotRetry
    }
}
