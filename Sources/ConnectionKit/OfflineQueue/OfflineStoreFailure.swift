import Foundation

/// Why the offline queue's files could not be read or written; wrapped in `ConnectionError.fileSystem`.
struct OfflineStoreFailure: Error, LocalizedError, Sendable, CustomStringConvertible {
    let message: String
    var errorDescription: String? { message }
    var description: String { message }
}
