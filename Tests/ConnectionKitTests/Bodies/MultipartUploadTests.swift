import ConnectionKit
import ConnectionKitTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Uploads the form given at init.
private final class UploadFile: ConnectionRequest<Data>, @unchecked Sendable {
    // Safe: immutable after init.
    let target: URL
    let form: MultipartForm

    init(_ target: URL, form: MultipartForm) {
        self.target = target
        self.form = form
        super.init()
        callbackQueue = DispatchQueue(label: "MultipartUploadTests")
    }

    override var url: URL? { target }
    override var httpMethod: HTTPMethod { .post }
    override var requestBody: RequestBody? { .multipart(form) }
    override var timeoutInterval: TimeInterval { 120 }
}

@Suite("Multipart upload from disk", .offThePool, .serialized, .exclusive, .timeLimit(.minutes(10)))
struct MultipartUploadTests {
    static let fileSize = 200 * 1024 * 1024
    static let seed: UInt8 = 7
    static let chunk = 1024 * 1024

    /// Writes the test file in 1 MiB pieces of generated content.
    private func makeLargeFile(at url: URL) throws {
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown)
        }
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        var offset = 0
        while offset < Self.fileSize {
            try handle.write(
                contentsOf: TestBody.generatedBytes(offset: Int64(offset), count: Self.chunk, seed: Self.seed))
            offset += Self.chunk
        }
    }

    /// The assembled body files of `boundary`'s form still in the temporary folder: those whose body opens
    /// with that boundary. Other suites assemble forms of their own (other boundaries) at the same time.
    private func leftoverBodyFiles(of boundary: String) -> [String] {
        let folder = URL(fileURLWithPath: NSTemporaryDirectory())
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        let opening = Data("--\(boundary)\r\n".utf8)
        return names.filter { name in
            guard name.hasPrefix("ConnectionKit-multipart-"),
                let handle = try? FileHandle(forReadingFrom: folder.appendingPathComponent(name))
            else { return false }
            defer { try? handle.close() }
            return (try? handle.read(upToCount: opening.count)) == opening
        }
    }

    @Test(.timeLimit(.minutes(10)))
    func a200MiBFileIsStreamedWithBoundedMemoryAndFullProgress() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("MultipartUploadTests-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("big.bin")
        try makeLargeFile(at: file)

        let server = try TestServer.started()
        defer { server.stop() }
        server.digestBodies(of: "/upload")
        server.route("POST", "/upload") { _ in .text("stored") }

        let opening =
            "--big-boundary\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\nbig\r\n"
            + "--big-boundary\r\nContent-Disposition: form-data; name=\"file\"; filename=\"big.bin\"\r\n"
            + "Content-Type: application/octet-stream\r\n\r\n"
        let closing = "\r\n--big-boundary--\r\n"
        let bodyLength = Int64(opening.utf8.count + Self.fileSize + closing.utf8.count)

        // The true peak, read in a child process that does only this upload: this process's own peak counts
        // every test running beside it, and a spike while the body is assembled, before any progress, counts too.
        server.route("POST", "/warm-up") { _ in .text("warm") }
        let transport = ConnectionTransport.default.name == "libcurl" ? "libcurl" : "urlSession"
        let child = try ChildProcess([
            "multipart-upload", server.url("/upload").absoluteString, server.url("/warm-up").absoluteString,
            file.path, transport,
        ])
        let (status, printed) = await child.finish(timeout: 300)
        #expect(status == 0, "the helper failed: \(printed)")
        let lines = printed.split(separator: "\n").map(String.init)
        func value(_ label: String) -> String? {
            lines.first { $0.hasPrefix(label + " ") }.map { String($0.dropFirst(label.count + 1)) }
        }

        #expect(value("ANSWER") == "stored", "printed: \(printed)")
        // The largest upload progress reported, completed and expected.
        #expect(value("PROGRESS") == "\(bodyLength) \(bodyLength)", "printed: \(printed)")
        let growth = try #require(value("GROWTH").flatMap { Int64($0) }, "printed: \(printed)")
        let growthMiB = Double(growth) / 1024
        print("MultipartUploadTests: \(transport), body \(bodyLength) bytes, peak growth \(growthMiB) MiB")
        #expect(growthMiB < 64, "resident memory grew by \(growthMiB) MiB during a 200 MiB upload")

        let received = try #require(server.receivedRequests("/upload").first)
        #expect(received.header("Content-Type") == "multipart/form-data; boundary=big-boundary")
        #expect(received.body.isEmpty)
        let digest = try #require(received.bodyDigest)
        #expect(digest.byteCount == bodyLength)
        var expected = TestBodyDigest()
        expected.update(Data(opening.utf8))
        var offset = 0
        while offset < Self.fileSize {
            expected.update(TestBody.generatedBytes(offset: Int64(offset), count: Self.chunk, seed: Self.seed))
            offset += Self.chunk
        }
        expected.update(Data(closing.utf8))
        #expect(digest.checksum == expected.checksum)
        #expect(digest.head.prefix(opening.utf8.count) == Data(opening.utf8))
        #expect(digest.tail.suffix(closing.utf8.count) == Data(closing.utf8))
        // The assembled body file is gone once the run ended.
        #expect(leftoverBodyFiles(of: "big-boundary").isEmpty)
    }

    @Test func theAssembledBodyIsDeletedWhenTheRunFails() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("POST", "/upload") { _ in .status(500, body: "no") }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("MultipartUploadTests-\(UUID()).bin")
        try Data(repeating: 1, count: 5 * 1024 * 1024).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        var form = MultipartForm()
        form.addFile(name: "f", fileURL: file)
        let request = UploadFile(server.url("/upload"), form: form)
        let error = try await #require(throws: ConnectionError.self) { try await request.value() }
        #expect(error.statusCode == 500)
        #expect((server.receivedRequests("/upload").first?.body.count ?? 0) > 5 * 1024 * 1024)
        #expect(leftoverBodyFiles(of: form.boundary).isEmpty)
    }

    @Test func a307RedirectSendsTheFileBodyAgainAnd303DropsIt() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("POST", "/old") { _ in .redirect(to: "/new", status: 307) }
        server.route("POST", "/new") { _ in .text("kept") }
        server.route("POST", "/see-other") { _ in .redirect(to: "/landing", status: 303) }
        server.route("GET", "/landing") { _ in .text("landed") }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("MultipartUploadTests-\(UUID()).bin")
        try TestBody.generatedBytes(length: 5 * 1024 * 1024, seed: 3).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        var form = MultipartForm(boundary: "redirected")
        form.addFile(name: "f", fileURL: file)

        let kept = try await UploadFile(server.url("/old"), form: form).value()
        #expect(String(decoding: kept, as: UTF8.self) == "kept")
        let first = try #require(server.receivedRequests("/old").first)
        let second = try #require(server.receivedRequests("/new").first)
        #expect(first.body.count > 5 * 1024 * 1024)
        #expect(second.body == first.body)
        #expect(second.header("Content-Type") == "multipart/form-data; boundary=redirected")

        let landed = try await UploadFile(server.url("/see-other"), form: form).value()
        #expect(String(decoding: landed, as: UTF8.self) == "landed")
        #expect(server.receivedRequests("/landing").first?.body.isEmpty == true)
        #expect(leftoverBodyFiles(of: "redirected").isEmpty)
    }
}
