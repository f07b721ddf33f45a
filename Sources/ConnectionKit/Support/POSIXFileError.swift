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
}
