// The code samples of docs/saving-to-file.md, each in a namespace of its own, so that the guide
// cannot drift from the API: if a sample stops compiling, this file does too. Keep them in sync.
import ConnectionKit
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

enum SavingToFileDocSample1 {
    func fetchArchive() async throws -> URL {
        let source = URL(string: "https://downloads.example.com/archive.zip")!
        let destination = FileManager.default.temporaryDirectory.appendingPathComponent("archive.zip")
        let download = DownloadRequest(from: source, to: destination)
        return try await download.value()  // == destination, complete
    }
}

enum SavingToFileDocSample2 {
    final class FetchReport: DownloadRequest, @unchecked Sendable {
        // Safe: `year` is a `let`, set in init.
        let year: Int

        init(year: Int) {
            self.year = year
            super.init()
        }

        override var url: URL? { URL(string: "https://api.example.com/reports/\(year).pdf") }
    }

    func saveReport(to destination: URL) {
        let report = FetchReport(year: 2024)
        report.progressHandler = { progress in
            print(progress.fractionCompleted.map { "\(Int($0 * 100))%" } ?? "\(progress.completedBytes) bytes")
        }
        report.completionHandler = { file in print("saved to \(file.path)") }
        report.failureHandler = { error in print(error) }
        report.startAndSave(to: destination)  // sets fileDestination, then starts
    }
}

enum SavingToFileDocSample3 {
    func describe(_ error: any Error) -> String {
        guard let error = error as? ConnectionError else { return "\(error)" }
        switch error.kind {
        case .fileSystem(let underlying as FileIntegrityError):
            return "corrupt download (\(underlying.check)): \(underlying)"
        case .fileSystem:
            return "cannot save: \(error.localizedDescription)"
        case .cancelled:
            return "cancelled"
        default:
            return error.localizedDescription
        }
    }
}

enum SavingToFileDocSample4 {
    struct Station: Codable, Sendable {
        let id: Int
        let name: String
    }

    final class FetchStations: JSONConnectionRequest<[Station]>, @unchecked Sendable {
        override var url: URL? { URL(string: "https://api.example.com/stations.json") }
    }

    func refreshStations(cache: URL) async throws -> [Station] {
        let request = FetchStations()
        request.fileDestination = cache  // saved to cache, then decoded from it
        return try await request.value()
    }
}

enum SavingToFileDocSample5 {
    final class FetchDataset: DownloadRequest, @unchecked Sendable {
        override var url: URL? { URL(string: "https://data.example.com/dataset.tar") }
        override var resumesInterruptedDownloads: Bool { true }

        // Optional: resume within the same run, too. On Linux a body cut short arrives as
        // URLError code -1 (`.unknown`), which the default policy does not retry.
        override var retryPolicy: RetryPolicy {
            var policy = RetryPolicy.default
            policy.maximumAttempts = 5
            policy.retryableURLErrorCodes.insert(.unknown)
            return policy
        }
    }
}

enum SavingToFileDocSample6 {
    final class FetchInstaller: DownloadRequest, @unchecked Sendable {
        override var url: URL? { URL(string: "https://downloads.example.com/installer-2.4.1.pkg") }
        override var expectedFileSize: Int64? { 48_213_504 }
        override var expectedSHA256: String? { "3a7bd3e2360a3d29eea436fcfb7e44c735d117c42d1c1835420b6b9942dd4f1b" }
    }
}

enum SavingToFileDocSample7 {
    final class UploadPhoto: ConnectionRequest<Data>, @unchecked Sendable {
        // Safe: `photo` is a `let`, set in init.
        let photo: Data

        init(photo: Data) {
            self.photo = photo
            super.init()
        }

        override var url: URL? { URL(string: "https://api.example.com/photos") }
        override var httpMethod: HTTPMethod { .post }
        override var bodyData: Data? { photo }
        override var progressInterval: TimeInterval { 0.25 }
    }

    func upload(_ photo: Data) {
        let request = UploadPhoto(photo: photo)
        request.progressHandler = { progress in
            switch progress.direction {
            case .upload: print("sent \(progress.completedBytes) of \(progress.expectedBytes ?? -1)")
            case .download: print("receiving the answer: \(progress)")
            }
        }
        request.start()
    }
}
