import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A file-system failure with the operation, the path and the system's reason.
struct POSIXFileError: Error, LocalizedError, Sendable {
    let message: String
    var errorDescription: String? { message }

    static func current(operation: String, path: String) -> POSIXFileError {
        let reason = String(cString: strerror(errno))
        return POSIXFileError(message: "could not \(operation) \(path): \(reason)")
    }
}
