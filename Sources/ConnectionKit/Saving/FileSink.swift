import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Streams the body to a temporary file beside the destination with plain POSIX writes, so that
/// memory does not grow with the body and the final rename is atomic (same folder, same file system).
/// Checks the declared size and SHA-256 before the file can be renamed into place.
final class FileSink: BodySink {
    let target: FileTarget
    private var descriptor: Int32
    /// Bytes in the file: the resumed part plus what this transfer wrote.
    private var length: Int64
    private var hasher: SHA256?
    /// Whether an interruption keeps the partial file for the next start.
    private let keepsPartialFile: Bool

    /// Opens the partial file: from the start, or (`offset`) after the bytes an earlier run left.
    /// `validator` is the response's, recorded for a later resume. Opens only a file ConnectionKit
    /// could have created (``OwnFile``): a link, a hard link or another user's file at the partial
    /// file's name is refused, never written through. Throws `ConnectionError.fileSystem`.
    init(target: FileTarget, appendingAt offset: Int64?, validator: String?) throws {
        self.target = target
        let path = target.partial.temporary.path
        let folder = target.partial.destination.deletingLastPathComponent().path
        self.hasher = target.expectedDigest == nil ? nil : SHA256()
        self.keepsPartialFile = target.resumable && validator != nil
        let role = "partial file"
        if let offset {
            // Read and write: the bytes already there are hashed through this same descriptor.
            let opened = try OwnFile.openChecked(path, flags: O_RDWR | O_APPEND, role: role, operation: "reopen")
            guard let opened else {
                throw ConnectionError(
                    .fileSystem(underlying: POSIXFileError(message: "the partial file \(path) vanished while resuming"))
                )
            }
            descriptor = opened
            length = offset
            do {
                try Self.checkSize(of: descriptor, is: offset, path: path)
                if hasher != nil { try hashExistingBytes(upTo: offset) }
            } catch {
                close(descriptor)
                target.partial.removeAll()
                throw error
            }
        } else {
            // A resumable partial file has a fixed name and may be left from an earlier run: it is
            // checked before it is emptied (O_TRUNC would empty whatever file it turned out to be).
            // Any other is unique to this transfer and must not exist yet.
            let flags = O_WRONLY | O_CREAT | (target.resumable ? 0 : O_EXCL)
            let opened = try OwnFile.openChecked(
                path, flags: flags, role: role, operation: "create a file in", errorPath: folder)
            guard let opened else {
                throw ConnectionError(
                    .fileSystem(underlying: POSIXFileError(message: "could not create a file in \(folder)")))
            }
            descriptor = opened
            length = 0
            if target.resumable, ftruncate(descriptor, 0) != 0 {
                let error = POSIXFileError.current(operation: "empty", path: path)
                close(descriptor)
                throw ConnectionError(.fileSystem(underlying: error))
            }
        }
        do {
            try target.partial.recordValidator(target.resumable ? validator : nil)
        } catch {
            close(descriptor)
            target.partial.removeAll()
            throw error
        }
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }

    func append(_ data: Data) throws -> TransferDemand {
        let written = data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) in
            hasher?.update(buffer)
            return POSIXFile.writeAll(buffer, to: descriptor)
        }
        guard written else {
            throw ConnectionError(
                .fileSystem(underlying: POSIXFileError.current(operation: "write", path: target.partial.temporary.path))
            )
        }
        length += Int64(data.count)
        return .more
    }

    /// Closes the file and checks it against the expected size and digest; a mismatch removes it.
    func finish() throws -> CompletedBody {
        var partial = target.partial
        partial.written = OwnFile.identity(of: descriptor)
        let result = close(descriptor)
        descriptor = -1
        guard result == 0 else {
            let error = POSIXFileError.current(operation: "write", path: target.partial.temporary.path)
            target.partial.removeAll()
            throw ConnectionError(.fileSystem(underlying: error))
        }
        if let expected = target.expectedSize, expected != length {
            target.partial.removeAll()
            throw ConnectionError(
                .fileSystem(
                    underlying: FileIntegrityError(check: .size, expected: String(expected), actual: String(length))))
        }
        if let expected = target.expectedDigest, var hasher {
            let actual = hasher.finalize()
            guard actual == expected else {
                target.partial.removeAll()
                throw ConnectionError(
                    .fileSystem(
                        underlying: FileIntegrityError(
                            check: .sha256, expected: SHA256.hex(expected), actual: SHA256.hex(actual))))
            }
        }
        return .file(partial)
    }

    /// The transfer was interrupted or abandoned: keeps the partial file when it can be resumed,
    /// otherwise removes it.
    ///
    /// A removed file loses its name at once, and the descriptor is closed afterwards on
    /// ``ConnectionQueues/fileRelease``: the last close of an unlinked file is what gives its blocks
    /// back, about 10 ms for 100 MiB here, and the failure handler of a cancelled download waited for it.
    /// Nothing is left by the time that handler runs; the space follows within milliseconds.
    func discard() {
        let open = descriptor
        descriptor = -1
        guard !keepsPartialFile else {
            if open >= 0 { close(open) }
            return
        }
        target.partial.removeAll()
        if open >= 0 {
            ConnectionQueues.fileRelease.async { close(open) }
        }
    }

    private static func checkSize(of descriptor: Int32, is expected: Int64, path: String) throws {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            throw ConnectionError(.fileSystem(underlying: POSIXFileError.current(operation: "inspect", path: path)))
        }
        guard Int64(info.st_size) == expected else {
            throw ConnectionError(
                .fileSystem(underlying: POSIXFileError(message: "the partial file \(path) changed while resuming")))
        }
    }

    /// Feeds the bytes an earlier run saved to the digest, in 1 MiB reads of the open partial file.
    private func hashExistingBytes(upTo end: Int64) throws {
        let path = target.partial.temporary.path
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        var position: Int64 = 0
        while position < end, let base = buffer.baseAddress {
            let count = pread(descriptor, base, min(buffer.count, Int(end - position)), off_t(position))
            if count < 0, errno == EINTR { continue }
            guard count > 0 else {
                throw ConnectionError(.fileSystem(underlying: POSIXFileError.current(operation: "read", path: path)))
            }
            hasher?.update(UnsafeRawBufferPointer(start: base, count: count))
            position += Int64(count)
        }
    }
}
