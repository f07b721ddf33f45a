import ConnectionKit
import ConnectionKitTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("Save to file", .offThePool, .timeLimit(.minutes(10)), .exclusive)
struct SaveToFileTests {
    let queue = DispatchQueue(label: "SaveToFileTests.callbacks")

    @Test("a 64 MiB body saved to file matches byte for byte (SHA-256)")
    func largeBodyMatches() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        let scratch = try Scratch()
        defer { scratch.remove() }
        let length: Int64 = 64 * 1_024 * 1_024
        server.route("GET", "/big.bin") { _ in TestResponse(body: .generated(length: length, seed: 42)) }
        let destination = scratch.file("big.bin")

        let download = DownloadRequest(from: server.url("/big.bin"), to: destination)
        download.callbackQueue = queue
        let saved = try await download.value()

        #expect(saved == destination)
        #expect(scratch.contents() == ["big.bin"])
        #expect(try await FileChecks.matchesGenerated(destination, length: length, seed: 42))
        let expected = try await FileChecks.sha256sumOfGenerated(length: length, seed: 42)
        let actual = try await FileChecks.sha256sum(of: destination)
        #expect(expected != nil && actual == expected)
    }

    @Test("a JSON request saves to file and decodes the saved file, mapped rather than copied")
    func jsonSaveAndDecode() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        let scratch = try Scratch()
        defer { scratch.remove() }
        // Over 8 KiB: Foundation reads smaller files instead of mapping them.
        let items = (0..<2_000).map { SavedItems.Item(id: $0, name: "item \($0)") }
        server.route("GET", "/items") { _ in .json(items) }
        let destination = scratch.file("items.json")

        let request = SavedItems(endpoint: server.url("/items"))
        request.callbackQueue = queue
        request.fileDestination = destination
        let decoded = try await request.value()

        #expect(decoded == items)
        let saved = try JSONDecoder().decode([SavedItems.Item].self, from: Data(contentsOf: destination))
        #expect(saved == items)
        #expect(scratch.contents() == ["items.json"])
        if FileManager.default.fileExists(atPath: "/proc/self/maps") {
            #expect(request.mappedWhileParsing, "parseCompletionData should get the file mapped into memory")
        }
    }

    @Test("startAndSave(to:) on a Data request delivers the saved bytes to the completion handler")
    func startAndSaveDeliversData() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        let scratch = try Scratch()
        defer { scratch.remove() }
        let body = TestBody.generatedBytes(length: 300_000, seed: 3)
        server.route("GET", "/blob") { _ in TestResponse(body: .data(body)) }
        let destination = scratch.file("blob")

        let request = BasicConnectionRequest(request: URLRequest(url: server.url("/blob")))
        request.callbackQueue = queue
        let delivered: Data = try await withCheckedThrowingContinuation { continuation in
            request.completionHandler = { continuation.resume(returning: $0) }
            request.failureHandler = { continuation.resume(throwing: $0) }
            request.startAndSave(to: destination)
        }

        #expect(delivered == body)
        #expect(try Data(contentsOf: destination) == body)
        #expect(request.fileDestination == destination)
        #expect(scratch.contents() == ["blob"])
    }

    @Test("an existing file at the destination is replaced only when the new one is complete")
    func replacesExistingFileOnSuccessOnly() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        let scratch = try Scratch()
        defer { scratch.remove() }
        let destination = scratch.file("report.txt")
        try Data("old".utf8).write(to: destination)
        server.route("GET", "/broken") { _ in
            TestResponse(body: .generated(length: 500_000, seed: 1), fault: .closeAfterBodyBytes(100_000))
        }
        server.route("GET", "/report") { _ in .text("new") }

        let broken = DownloadRequest(from: server.url("/broken"), to: destination)
        broken.callbackQueue = queue
        #expect(connectionError(await outcome(broken)) != nil)
        #expect(try Data(contentsOf: destination) == Data("old".utf8))

        let fresh = DownloadRequest(from: server.url("/report"), to: destination)
        fresh.callbackQueue = queue
        _ = try await fresh.value()
        #expect(try Data(contentsOf: destination) == Data("new".utf8))
        #expect(scratch.contents() == ["report.txt"])
    }

    @Test("an error status saves nothing and keeps the body for the error")
    func errorStatusSavesNothing() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        let scratch = try Scratch()
        defer { scratch.remove() }
        server.route("GET", "/missing") { _ in .status(404, body: "not here") }

        let download = DownloadRequest(from: server.url("/missing"), to: scratch.file("missing.bin"))
        download.callbackQueue = queue
        let error = connectionError(await outcome(download))

        #expect(error?.statusCode == 404)
        #expect(error?.responseBody == Data("not here".utf8))
        #expect(scratch.contents().isEmpty)
    }

    @Test("a DownloadRequest without a destination fails with invalidRequest, sending nothing")
    func downloadWithoutDestination() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("GET", "/file") { _ in .text("x") }
        let download = DownloadRequest()
        download.callbackQueue = queue
        let error = connectionError(await outcome(download))
        if case .invalidRequest = error?.kind {
        } else {
            Issue.record("expected invalidRequest, got \(String(describing: error))")
        }
        #expect(server.hits("/file") == 0)
    }
}
