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
    func append(_ data: Data) throws
    /// Closes the sink and hands over what it holds.
    func finish() throws -> CompletedBody
    /// Throws away whatever was received (and any temporary file).
    func discard()
}

/// A received body, in memory or in a temporary file waiting to be renamed into place.
enum CompletedBody: Sendable {
    case memory(Data)
    case file(temporary: URL, destination: URL)

    /// The body in memory, or `nil` for a file.
    var inMemoryData: Data? {
        if case .memory(let data) = self { return data }
        return nil
    }

    /// The bytes: in memory, or the temporary file mapped (not copied) into memory.
    func data() throws -> Data {
        switch self {
        case .memory(let data):
            return data
        case .file(let temporary, _):
            return try Data(contentsOf: temporary, options: .alwaysMapped)
        }
    }

    /// Renames a temporary file into place (atomically replacing what was there).
    func commit() throws {
        guard case .file(let temporary, let destination) = self else { return }
        guard rename(temporary.path, destination.path) == 0 else {
            let error = POSIXFileError.current(operation: "move the download into place at", path: destination.path)
            discard()
            throw error
        }
    }

    /// Removes a temporary file.
    func discard() {
        if case .file(let temporary, _) = self {
            unlink(temporary.path)
        }
    }
}

/// Keeps the body in memory, failing once it exceeds `limit` bytes.
final class MemorySink: BodySink {
    private var buffer = Data()
    private let limit: Int64

    init(limit: Int64, expectedLength: Int64?) {
        self.limit = limit
        if let expectedLength, expectedLength > 0, expectedLength <= limit {
            buffer.reserveCapacity(Int(expectedLength))
        }
    }

    func append(_ data: Data) throws {
        guard Int64(buffer.count) + Int64(data.count) <= limit else {
            throw ConnectionError(.responseTooLarge(limit: limit))
        }
        buffer.append(data)
    }

    func finish() throws -> CompletedBody { .memory(buffer) }

    func discard() { buffer = Data() }
}

/// Drops the body: a redirect's, which nobody reads.
final class DiscardSink: BodySink {
    func append(_ data: Data) throws {}
    func finish() throws -> CompletedBody { .memory(Data()) }
    func discard() {}
}

/// Streams the body to a temporary file beside the destination, so that memory does not grow
/// with the body and the final rename is atomic (same folder, same file system).
final class FileSink: BodySink {
    let destination: URL
    let temporaryURL: URL
    private var descriptor: Int32

    /// Checks the destination and creates the temporary file; throws `ConnectionError.fileSystem`.
    init(destination: URL) throws {
        guard destination.isFileURL else {
            throw ConnectionError(
                .fileSystem(underlying: POSIXFileError(message: "the destination \(destination) is not a file URL")))
        }
        let folder = destination.deletingLastPathComponent()
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder.path, isDirectory: &isFolder), isFolder.boolValue else {
            throw ConnectionError(
                .fileSystem(underlying: POSIXFileError(message: "the folder \(folder.path) does not exist")))
        }
        if FileManager.default.fileExists(atPath: destination.path, isDirectory: &isFolder), isFolder.boolValue {
            throw ConnectionError(
                .fileSystem(underlying: POSIXFileError(message: "the destination \(destination.path) is a folder")))
        }
        let name = ".\(destination.lastPathComponent).\(UUID().uuidString.prefix(8)).ckpart"
        self.destination = destination
        self.temporaryURL = folder.appendingPathComponent(name)
        self.descriptor = open(temporaryURL.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw ConnectionError(
                .fileSystem(underlying: POSIXFileError.current(operation: "create a file in", path: folder.path)))
        }
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }

    func append(_ data: Data) throws {
        try data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) in
            guard var pointer = buffer.baseAddress else { return }
            var remaining = buffer.count
            while remaining > 0 {
                let written = write(descriptor, pointer, remaining)
                if written < 0 {
                    if errno == EINTR { continue }
                    throw ConnectionError(
                        .fileSystem(underlying: POSIXFileError.current(operation: "write", path: temporaryURL.path)))
                }
                remaining -= written
                pointer += written
            }
        }
    }

    func finish() throws -> CompletedBody {
        let result = close(descriptor)
        descriptor = -1
        guard result == 0 else {
            let error = POSIXFileError.current(operation: "write", path: temporaryURL.path)
            unlink(temporaryURL.path)
            throw ConnectionError(.fileSystem(underlying: error))
        }
        return .file(temporary: temporaryURL, destination: destination)
    }

    func discard() {
        if descriptor >= 0 {
            close(descriptor)
            descriptor = -1
        }
        unlink(temporaryURL.path)
    }
}

/// A file-system failure with the operation, the path and the system's reason.
struct POSIXFileError: Error, LocalizedError, Sendable {
    let message: String
    var errorDescription: String? { message }

    static func current(operation: String, path: String) -> POSIXFileError {
        let reason = String(cString: strerror(errno))
        return POSIXFileError(message: "could not \(operation) \(path): \(reason)")
    }
}
