import Foundation

/// Why a ``CookieJar`` could not read or write its file. Messages never contain a cookie's value.
public struct CookieJarError: Error, Sendable, LocalizedError, CustomStringConvertible {
    /// What went wrong.
    public enum Kind: Sendable {
        /// The file exists but is not a cookie file ConnectionKit wrote. It is left untouched.
        case corruptFile(URL)
        /// Reading, writing or renaming the file failed.
        case fileSystem(URL, underlying: any Error)
        /// ``CookieJar/save()`` was called on a jar made without a file.
        case noFile
    }

    /// What went wrong.
    public var kind: Kind

    /// Creates an error.
    public init(_ kind: Kind) {
        self.kind = kind
    }

    /// A one-sentence message.
    public var errorDescription: String? {
        switch kind {
        case .corruptFile(let url):
            return "The cookie file at \(url.path) is corrupt and cannot be read. Delete it to start an empty jar."
        case .fileSystem(let url, let error):
            return "The cookie file at \(url.path) could not be accessed: \(error.localizedDescription)"
        case .noFile:
            return "This cookie jar keeps its cookies in memory only: make it with a file URL to save it."
        }
    }

    /// The same as ``errorDescription``.
    public var description: String { errorDescription ?? "CookieJarError" }
}
