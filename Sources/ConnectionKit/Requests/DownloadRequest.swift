import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A request that saves the response body to ``AnyConnectionRequest/fileDestination``; its output
/// is the saved file's URL.
///
/// The body streams to a temporary file beside the destination (memory does not grow with the
/// file) and is renamed into place only when complete and validated; on failure or cancel nothing
/// appears at the destination.
///
/// ```swift
/// let download = DownloadRequest(from: URL(string: "https://example.com/big.zip")!, to: destination)
/// let savedFile = try await download.value()
/// ```
/// - SeeAlso: <doc:saving-to-file>
open class DownloadRequest: ConnectionRequest<URL>, @unchecked Sendable {
    // Safe: the source URL is immutable; the rest lives in the base class's locked storage.
    private let source: URL?

    /// Creates a download; override ``AnyConnectionRequest/url`` and set a destination before starting.
    public override init() {
        source = nil
        super.init()
    }

    /// Creates a download of `url` to `destination`.
    public init(from url: URL, to destination: URL) {
        source = url
        super.init()
        fileDestination = destination
    }

    /// The URL given to ``init(from:to:)``; override it in a subclass.
    open override var url: URL? { source ?? super.url }

    /// Returns the saved file's URL. Starting without a ``AnyConnectionRequest/fileDestination``
    /// fails with `invalidRequest`.
    open override func parseCompletionData(_ data: Data, response: ConnectionResponse) throws -> URL {
        guard let destination = fileDestination else {
            throw ConnectionError(.invalidRequest(reason: "\(Self.self) has no fileDestination."))
        }
        return destination
    }

    /// Fails when there is no destination.
    open override func makeURLRequest() throws -> URLRequest {
        guard fileDestination != nil else {
            throw ConnectionError(
                .invalidRequest(reason: "\(Self.self) has no fileDestination. Set it, or call startAndSave(to:)."))
        }
        return try super.makeURLRequest()
    }

    override func produceOutput(body: CompletedBody, response: ConnectionResponse) throws -> any Sendable {
        guard case .file(let partial) = body else {
            throw ConnectionError(.invalidRequest(reason: "\(Self.self) has no fileDestination."))
        }
        return partial.destination
    }
}
