import ConnectionKitTesting
import Foundation
import Testing

@testable import ConnectionKit

@Suite("Save to file: cancel and interruptions", .offThePool, .timeLimit(.minutes(10)), .exclusive)
struct InterruptedSaveTests {
    let queue = DispatchQueue(label: "InterruptedSaveTests.callbacks")

    @Test(
        "a cancel midway leaves nothing at the destination and no temporary file, and the file is closed soon after"
    )
    func cancelMidway() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        let scratch = try Scratch()
        defer { scratch.remove() }
        let body = TestBody.generatedBytes(length: 4 * 1_024 * 1_024, seed: 5)
        server.route("GET", "/slow") { _ in
            TestResponse(body: .drip(body, chunkSize: 64 * 1_024, interval: 0.05))
        }
        let download = DownloadRequest(from: server.url("/slow"), to: scratch.file("slow.bin"))
        download.callbackQueue = queue
        let progress = progressStream(of: download)
        let ending = started(download)
        _ = try await firstProgressWithBytes(in: progress)
        #expect(scratch.contents().count == 1, "the partial file exists while the body arrives")
        #if os(Linux)
            #expect(!Self.openFiles(in: scratch).isEmpty, "the partial file is open while the body arrives")
        #endif
        download.cancel()
        let error = connectionError(try await endingResult(of: ending))

        #expect(error?.isCancelled == true)
        #expect(scratch.contents().isEmpty)
        #if os(Linux)
            // The descriptor is closed on a background queue after the name is gone (``FileSink``): once
            // that serial queue has run what was queued before the handler, nothing of the folder is open.
            let drained = await waitForSignal(timeout: 10) { signal in
                ConnectionQueues.fileRelease.async(execute: signal)
            }
            #expect(drained, "the file-release queue did not drain within 10 s")
            #expect(Self.openFiles(in: scratch).isEmpty, "descriptors still open: \(Self.openFiles(in: scratch))")
        #endif
    }

    #if os(Linux)
        /// What this process's open descriptors point to inside `scratch` (removed files read "… (deleted)").
        private static func openFiles(in scratch: Scratch) -> [String] {
            let folder = scratch.folder.resolvingSymlinksInPath().path + "/"
            let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
            return entries.compactMap { entry in
                let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(entry)")
                return target.flatMap { $0.hasPrefix(folder) ? $0 : nil }
            }
        }
    #endif

    @Test(
        "a server that closes midway leaves nothing at the destination and no temporary file, also when the download is resumable but the response has no validator",
        arguments: [false, true])
    func serverClosesMidway(resumable: Bool) async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        let scratch = try Scratch()
        defer { scratch.remove() }
        server.route("GET", "/cut") { _ in
            TestResponse(body: .generated(length: 2_000_000, seed: 9), fault: .closeAfterBodyBytes(700_000))
        }
        let (url, destination) = (server.url("/cut"), scratch.file("cut.bin"))
        let download: DownloadRequest =
            resumable ? ResumableDownload(from: url, to: destination) : DownloadRequest(from: url, to: destination)
        download.callbackQueue = queue
        let error = connectionError(await outcome(download))

        if case .transport = error?.kind {
        } else {
            Issue.record("expected a transport error, got \(String(describing: error))")
        }
        #expect(scratch.contents().isEmpty)
    }

    @Test("a resumable download keeps its partial file and validator after a cancel, and nothing else")
    func resumableCancelKeepsPartial() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        let scratch = try Scratch()
        defer { scratch.remove() }
        let body = TestBody.generatedBytes(length: 4 * 1_024 * 1_024, seed: 6)
        server.route("GET", "/slow") { _ in
            TestResponse(
                headers: [TestHeader("ETag", "\"s1\"")], body: .drip(body, chunkSize: 64 * 1_024, interval: 0.05))
        }
        let download = ResumableDownload(from: server.url("/slow"), to: scratch.file("slow.bin"))
        download.callbackQueue = queue
        let progress = progressStream(of: download)
        let ending = started(download)
        _ = try await firstProgressWithBytes(in: progress)
        download.cancel()
        #expect(connectionError(try await endingResult(of: ending))?.isCancelled == true)

        #expect(scratch.contents() == [".slow.bin.ckpart", ".slow.bin.ckpart-validator"])
        let validator = try String(contentsOf: scratch.file(".slow.bin.ckpart-validator"), encoding: .utf8)
        #expect(validator == "\"s1\"")
    }
}
