import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where a response body goes while it arrives.
protocol BodySink: AnyObject {
    /// Takes a piece of the body; the answer is the transfer's demand (``TransferDemand``): `.wait` only
    /// from a sink that later asks the transfer for more itself (a streaming request's consumer).
    func append(_ data: Data) throws -> TransferDemand
    /// Takes a piece of the body that lives only for the call.
    func append(bytes: UnsafeRawBufferPointer) throws -> TransferDemand
    /// Closes the sink and hands over what it holds.
    func finish() throws -> CompletedBody
    /// Throws away whatever was received (and any temporary file).
    func discard()
}

extension BodySink {
    func append(bytes: UnsafeRawBufferPointer) throws -> TransferDemand { try append(Data(bytes)) }
}

/// A received body, in memory or in a temporary file waiting to be renamed into place.
enum CompletedBody: Sendable {
    case memory(Data)
    case file(PartialFile)

    /// The body in memory, or `nil` for a file.
    var inMemoryData: Data? {
        if case .memory(let data) = self { return data }
        return nil
    }

    /// The bytes: in memory, or the temporary file mapped (not copied) into memory. (Foundation
    /// reads a file of 8 KiB or less instead of mapping it.)
    func data() throws -> Data {
        switch self {
        case .memory(let data):
            return data
        case .file(let partial):
            if let written = partial.written, !OwnFile.isStill(written, at: partial.temporary.path) {
                throw POSIXFileError(message: "the partial file \(partial.temporary.path) was replaced while saving")
            }
            // mmap refuses an empty file.
            var info = stat()
            if stat(partial.temporary.path, &info) == 0, info.st_size == 0 { return Data() }
            return try Data(contentsOf: partial.temporary, options: .alwaysMapped)
        }
    }

    /// Renames a temporary file into place (atomically replacing what was there). A rename replaces
    /// a link at the destination rather than writing through it; and only the file that was written
    /// is moved, not whatever someone put at the temporary name since.
    func commit() throws {
        guard case .file(let partial) = self else { return }
        if let written = partial.written, !OwnFile.isStill(written, at: partial.temporary.path) {
            discard()
            throw POSIXFileError(message: "the partial file \(partial.temporary.path) was replaced while saving")
        }
        guard rename(partial.temporary.path, partial.destination.path) == 0 else {
            let error = POSIXFileError.current(
                operation: "move the download into place at", path: partial.destination.path)
            discard()
            throw error
        }
        partial.removeValidator()
    }

    /// Removes a temporary file (and its resume record: a complete body is never resumed).
    func discard() {
        if case .file(let partial) = self {
            partial.removeAll()
        }
    }
}
