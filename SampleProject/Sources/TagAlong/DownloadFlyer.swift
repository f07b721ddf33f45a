import ConnectionKit
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `GET attachments/flyer.pdf`, saved to a file: the output is the saved file's URL.
final class DownloadFlyer: TagAlongRequest<URL>, @unchecked Sendable {
    init(to destination: URL) {
        super.init()
        fileDestination = destination
    }

    override var path: String { "attachments/flyer.pdf" }
    override var requestHeaderFields: [String: String] { ["Accept": "application/pdf"] }

    /// A download cut short keeps its partial file; the next start asks only for the rest.
    override var resumesInterruptedDownloads: Bool { true }

    /// The body is already in the file; the result is where.
    override func parseCompletionData(_ data: Data, response: ConnectionResponse) throws -> URL {
        guard let destination = fileDestination else {
            throw ConnectionError(.invalidRequest(reason: "DownloadFlyer has no destination"))
        }
        return destination
    }
}
