import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The POSIX file writes ConnectionKit shares, so that the credential store, the offline queue and the saved
/// files cannot disagree on what "written" and "durable" mean.
enum POSIXFile {
    /// Writes all of `bytes` to `descriptor`, at `offset` (`pwrite`) or at the file position (`write`),
    /// retrying short and interrupted writes. `false`, with `errno` set, when a write fails.
    static func writeAll(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32, at offset: Int? = nil) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        var done = 0
        while done < bytes.count {
            let remaining = bytes.count - done
            let written =
                if let offset {
                    pwrite(descriptor, base + done, remaining, off_t(offset + done))
                } else {
                    write(descriptor, base + done, remaining)
                }
            if written < 0 {
                if errno == EINTR { continue }
                return false
            }
            done += written
        }
        return true
    }

    /// ``writeAll(_:to:at:)`` for `Data`.
    static func writeAll(_ data: Data, to descriptor: Int32, at offset: Int? = nil) -> Bool {
        data.withUnsafeBytes { writeAll($0, to: descriptor, at: offset) }
    }

    /// Replaces `target` with `data` so that a crash or a power loss leaves the old file or the new one, never
    /// a mix or nothing: creates `temporary` (in the same folder, 0600 whatever the umask, without following a
    /// link, failing if it exists), writes it, `fsync`s it, renames it over `target`, then `fsync`s the folder,
    /// without which the rename itself may be lost. A caller that replaces several files in one folder passes
    /// `syncFolder: false` and calls ``syncFolder(_:)`` once. The temporary file is removed when a step fails.
    static func replace(_ target: URL, with data: Data, temporary: URL, syncFolder: Bool = true) throws {
        let path = temporary.path
        let descriptor = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { throw POSIXFileError.current(operation: "create", path: path) }
        do {
            // The mode given to open() is narrowed by the umask only; make it exactly 0600 regardless.
            guard fchmod(descriptor, 0o600) == 0 else { throw POSIXFileError.current(operation: "chmod", path: path) }
            guard writeAll(data, to: descriptor) else { throw POSIXFileError.current(operation: "write", path: path) }
            guard fsync(descriptor) == 0 else { throw POSIXFileError.current(operation: "fsync", path: path) }
        } catch {
            close(descriptor)
            unlink(path)
            throw error
        }
        guard close(descriptor) == 0, rename(path, target.path) == 0 else {
            let error = POSIXFileError.current(operation: "move into place", path: target.path)
            unlink(path)
            throw error
        }
        if syncFolder { try Self.syncFolder(target.deletingLastPathComponent()) }
    }

    /// `fsync` of a folder: makes the creations, renames and removals of its entries durable.
    static func syncFolder(_ folder: URL) throws {
        let descriptor = open(folder.path, O_RDONLY | O_CLOEXEC | O_DIRECTORY | O_NOFOLLOW)
        guard descriptor >= 0 else { throw POSIXFileError.current(operation: "open", path: folder.path) }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw POSIXFileError.current(operation: "fsync", path: folder.path) }
    }
}
