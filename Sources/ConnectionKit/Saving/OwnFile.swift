import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Opens the files ConnectionKit keeps beside a download (the partial file and its resume record).
/// They live in a folder that others may write to, under names anyone can predict, so a file found
/// there is used only when ConnectionKit could have made it: never through a symbolic link, only a
/// regular file, owned by this process's user, with no other name (a hard link would let a write
/// land in a file elsewhere). Anything else is refused with an error naming the problem and left
/// where it is: removing or following it could harm a file ConnectionKit does not own.
enum OwnFile {
    /// Identifies the file written, so that the rename into place moves that file and no other.
    struct Identity: Sendable, Equatable {
        let device: UInt64
        let inode: UInt64

        init(_ info: stat) {
            // dev_t is signed on Darwin and unsigned on Linux: only the bits matter.
            device = UInt64(truncatingIfNeeded: info.st_dev)
            inode = UInt64(truncatingIfNeeded: info.st_ino)
        }
    }

    /// Opens `path` with `flags` and checks what was opened. Returns `nil` when the file does not
    /// exist (and `flags` does not create it). `role` names the file in errors ("partial file");
    /// `operation` and `errorPath` describe a failure of the system call itself.
    /// Throws `ConnectionError.fileSystem`.
    static func openChecked(
        _ path: String, flags: Int32, role: String, operation: String, errorPath: String? = nil
    ) throws -> Int32? {
        var before = stat()
        if lstat(path, &before) == 0 {
            // Before opening, so that a device or FIFO is never opened at all.
            try check(kind: before, path: path, role: role)
        }
        // O_NOFOLLOW: a link planted after the check fails instead of being followed. O_NONBLOCK: a
        // FIFO planted after the check cannot block the open; it is then refused as not a file.
        let descriptor = open(path, flags | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0o644)
        guard descriptor >= 0 else {
            let code = errno
            if code == ENOENT, flags & O_CREAT == 0 { return nil }
            if code == ELOOP { throw refusal(path: path, role: role, problem: "it is a symbolic link") }
            throw ConnectionError(
                .fileSystem(underlying: POSIXFileError.current(operation: operation, path: errorPath ?? path)))
        }
        do {
            var info = stat()
            guard fstat(descriptor, &info) == 0 else {
                throw ConnectionError(.fileSystem(underlying: POSIXFileError.current(operation: "inspect", path: path)))
            }
            try check(kind: info, path: path, role: role)
            try check(ownership: info, path: path, role: role)
            let status = fcntl(descriptor, F_GETFL)
            if status >= 0 { _ = fcntl(descriptor, F_SETFL, status & ~O_NONBLOCK) }
            return descriptor
        } catch {
            close(descriptor)
            throw error
        }
    }

    /// The identity of an open file.
    static func identity(of descriptor: Int32) -> Identity? {
        var info = stat()
        return fstat(descriptor, &info) == 0 ? Identity(info) : nil
    }

    /// Whether `path` is, right now, the regular file `identity` names (not a link, not another file).
    static func isStill(_ identity: Identity, at path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG && Identity(info) == identity
    }

    // MARK: - Checks

    private static func check(kind info: stat, path: String, role: String) throws {
        switch info.st_mode & S_IFMT {
        case S_IFREG:
            return
        case S_IFLNK:
            throw refusal(path: path, role: role, problem: "it is a symbolic link")
        default:
            throw refusal(path: path, role: role, problem: "it is not a regular file")
        }
    }

    private static func check(ownership info: stat, path: String, role: String) throws {
        guard info.st_uid == geteuid() else {
            throw refusal(path: path, role: role, problem: "it is owned by another user (uid \(info.st_uid))")
        }
        guard info.st_nlink == 1 else {
            throw refusal(path: path, role: role, problem: "it has other names (a hard link)")
        }
    }

    private static func refusal(path: String, role: String, problem: String) -> ConnectionError {
        ConnectionError(
            .fileSystem(
                underlying: POSIXFileError(
                    message: "refusing the \(role) \(path): \(problem), so ConnectionKit did not create it; "
                        + "remove it to save there again")))
    }
}
