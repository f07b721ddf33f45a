import ConnectionKit
import ConnectionKitTesting
import Foundation
import Testing

@Suite("Save to file: progress", .offThePool, .timeLimit(.minutes(10)), .exclusive)
struct ProgressTests {
    let queue = DispatchQueue(label: "ProgressTests.callbacks")

    /// Checks what every progress sequence of one attempt must satisfy.
    private func expectWellFormed(_ reports: [TransferProgress], direction: TransferProgress.Direction) {
        #expect(!reports.isEmpty, "at least the final report")
        var previous: TransferProgress?
        for report in reports {
            #expect(report.direction == direction)
            if let fraction = report.fractionCompleted {
                #expect(fraction >= 0 && fraction <= 1)
            }
            #expect(report.expectedBytes.map { report.completedBytes <= $0 } ?? true)
            if let previous {
                #expect(report.completedBytes >= previous.completedBytes, "never backwards")
                #expect((report.fractionCompleted ?? 0) >= (previous.fractionCompleted ?? 0))
            }
            previous = report
        }
    }

    @Test("a download of known length: monotonic, never above 1, ends at exactly 1.0")
    func knownLength() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        let scratch = try Scratch()
        defer { scratch.remove() }
        let length: Int64 = 8 * 1_024 * 1_024
        server.route("GET", "/file") { _ in TestResponse(body: .generated(length: length, seed: 31)) }
        let download = DownloadRequest(from: server.url("/file"), to: scratch.file("file.bin"))
        download.callbackQueue = queue
        let reports = Collected<TransferProgress>()
        download.progressHandler = { reports.append($0) }
        _ = try await download.value()

        let downloads = reports.all.filter { $0.direction == .download }
        expectWellFormed(downloads, direction: .download)
        #expect(downloads.allSatisfy { $0.expectedBytes == length })
        #expect(downloads.last?.completedBytes == length)
        #expect(downloads.last?.fractionCompleted == 1.0)
        #expect(reports.all.allSatisfy { $0.direction == .download }, "a GET uploads nothing")
    }

    @Test("a chunked download of unknown length has no fraction and no total")
    func unknownLength() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        let scratch = try Scratch()
        defer { scratch.remove() }
        let chunks = (0..<40).map { TestBody.generatedBytes(offset: Int64($0) * 50_000, count: 50_000, seed: 32) }
        server.route("GET", "/chunked") { _ in TestResponse(body: .chunked(chunks)) }
        let download = DownloadRequest(from: server.url("/chunked"), to: scratch.file("file.bin"))
        download.callbackQueue = queue
        let reports = Collected<TransferProgress>()
        download.progressHandler = { reports.append($0) }
        _ = try await download.value()

        let downloads = reports.all
        expectWellFormed(downloads, direction: .download)
        #expect(downloads.allSatisfy { $0.fractionCompleted == nil && $0.expectedBytes == nil })
        #expect(downloads.last?.completedBytes == 2_000_000)
        #expect(try Data(contentsOf: scratch.file("file.bin")) == chunks.reduce(Data(), +))
    }

    @Test("upload progress reaches the body's length")
    func uploadReachesBodyLength() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        let body = TestBody.generatedBytes(length: 3 * 1_024 * 1_024, seed: 33)
        server.route("POST", "/upload") { request in .json(["received": request.body.count]) }
        let upload = Upload(endpoint: server.url("/upload"), body: body)
        upload.callbackQueue = queue
        let reports = Collected<TransferProgress>()
        upload.progressHandler = { reports.append($0) }
        _ = try await upload.value()

        let uploads = reports.all.filter { $0.direction == .upload }
        expectWellFormed(uploads, direction: .upload)
        #expect(uploads.last?.completedBytes == Int64(body.count))
        #expect(uploads.last?.expectedBytes == Int64(body.count))
        #expect(uploads.last?.fractionCompleted == 1.0)
        #expect(server.receivedRequests("/upload").first?.body == body)
    }

    @Test("reports arrive at most every progressInterval (0.1 s by default), plus the last one")
    func boundedRate() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        let scratch = try Scratch()
        defer { scratch.remove() }
        let body = TestBody.generatedBytes(length: 1_600_000, seed: 34)
        server.route("GET", "/drip") { _ in TestResponse(body: .drip(body, chunkSize: 16_000, interval: 0.01)) }
        let download = DownloadRequest(from: server.url("/drip"), to: scratch.file("file.bin"))
        download.callbackQueue = queue
        let reports = Collected<TransferProgress>()
        download.progressHandler = { reports.append($0) }
        let start = Date()
        _ = try await download.value()
        let elapsed = Date().timeIntervalSince(start)

        let count = reports.all.count
        #expect(count >= 2)
        #expect(count <= Int(elapsed / 0.1) + 2, "\(count) reports in \(elapsed) s")
        #expect(reports.all.last?.fractionCompleted == 1.0)
    }
}
