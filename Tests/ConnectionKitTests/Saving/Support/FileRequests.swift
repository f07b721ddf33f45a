import ConnectionKit
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A download that resumes after an interruption.
final class ResumableDownload: DownloadRequest, @unchecked Sendable {
    // Safe: no stored state of its own.
    override var resumesInterruptedDownloads: Bool { true }
}

/// A download that declares the size and digest its file must have.
final class CheckedDownload: DownloadRequest, @unchecked Sendable {
    // Safe: both settings are `let`s, set in init.
    let size: Int64?
    let digest: String?

    init(from url: URL, to destination: URL, size: Int64?, digest: String?) {
        self.size = size
        self.digest = digest
        super.init(from: url, to: destination)
    }

    override var expectedFileSize: Int64? { size }
    override var expectedSHA256: String? { digest }
}

/// A JSON request whose body is saved to a file and then decoded from it.
final class SavedItems: JSONConnectionRequest<[SavedItems.Item]>, @unchecked Sendable {
    // Safe: `endpoint` is a `let`; `mappedWhileParsing` lives behind its lock.
    struct Item: Codable, Sendable, Equatable {
        let id: Int
        let name: String
    }

    let endpoint: URL
    private let mapped = NSLock()
    private var mappedValue = false

    init(endpoint: URL) {
        self.endpoint = endpoint
        super.init()
    }

    override var url: URL? { endpoint }

    /// Whether the partial file was memory-mapped into the process while `parseCompletionData` ran.
    var mappedWhileParsing: Bool {
        mapped.lock()
        defer { mapped.unlock() }
        return mappedValue
    }

    override func parseCompletionData(_ data: Data, response: ConnectionResponse) throws -> [Item] {
        // Read to the end by hand: /proc files report a size of 0.
        let maps = String(
            decoding: FileHandle(forReadingAtPath: "/proc/self/maps")?.readDataToEndOfFile() ?? Data(), as: UTF8.self)
        let name = fileDestination.map { ".\($0.lastPathComponent)." } ?? "-"
        let isMapped = maps.split(separator: "\n").contains { $0.contains(name) && $0.contains(".ckpart") }
        mapped.lock()
        mappedValue = isMapped
        mapped.unlock()
        return try super.parseCompletionData(data, response: response)
    }
}

/// A `Data` request that may save to file, with an upload body.
final class Upload: ConnectionRequest<Data>, @unchecked Sendable {
    // Safe: both are `let`s, set in init.
    let endpoint: URL
    let body: Data

    init(endpoint: URL, body: Data) {
        self.endpoint = endpoint
        self.body = body
        super.init()
    }

    override var url: URL? { endpoint }
    override var httpMethod: HTTPMethod { .post }
    override var bodyData: Data? { body }
}
