import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A file-system failure with the operation, the path and the system's reason.
struct POSIXFileError: Error, LocalizedError, Sendable, CustomStringConvertible {
    let message: String
    /// Whether it is the offline queue's failure: its ``ConnectionError`` message then names the queue rather
    /// than a saved response.
    var isOfflineQueue = false
    var errorDescription: String? { message }
    var description: String { message }

    /// The failure `errno` describes now, of `operation` on `path` ("could not write /a/b: No space left").
    static func current(operation: String, path: String) -> POSIXFileError {
        current("\(operation) \(path)")
    }

    /// The failure `errno` describes now, of what `action` names ("write to the journal").
    static func current(_ action: String) -> POSIXFileError {
        POSIXFileError(message: "could not \(action): \(String(cString: strerror(errno)))")
    }

    /// The same failure, as the offline queue's.
    var inOfflineQueue: POSIXFileError {
        POSIXFileError(message: message, isOfflineQueue: true)
    }

    /// `error` as the offline queue's failure: an ``OfflineQueueError`` as it is, a `POSIXFileError` marked,
    /// anything else (a Foundation error) described in one.
    static func offlineQueue(_ error: any Error) -> any Error {
        if error is OfflineQueueError { return error }
        if let error = error as? POSIXFileError { return error.inOfflineQueue }
        let message = (error as? LocalizedError)?.errorDescription ?? String(describing: error)
        return POSIXFileError(message: message, isOfflineQueue: true)
    }
}
