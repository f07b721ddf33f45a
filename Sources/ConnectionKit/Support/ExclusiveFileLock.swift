import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The lock that serialises the writers of one file, in this process and in others: the credential file
/// and the cookie jar's file read, change and replace their file under it.
///
/// Writers of a file in one process first wait on one shared in-process lock (so threads do not queue in
/// the kernel), then take an exclusive advisory `flock` on a sibling lock file, `.<file name>.lock`
/// (permissions 0600, never followed if it is a symbolic link, kept after use). `flock` rather than `fcntl`
/// locks: `fcntl` locks belong to the process, so two instances in one process would not exclude each other,
/// and closing any descriptor of the file would drop them.
enum ExclusiveFileLock {
    /// The sibling file whose `flock` serialises writers of `fileURL` across processes.
    static func lockFileURL(for fileURL: URL) -> URL {
        fileURL.deletingLastPathComponent().appendingPathComponent(".\(fileURL.lastPathComponent).lock")
    }

    /// Why the lock file could not be opened or locked.
    struct Failure: Error {
        let lockFileURL: URL
        let underlying: POSIXFileError
    }

    /// Runs `body` holding both locks of `fileURL`. Throws ``Failure`` when the lock file cannot be opened
    /// or locked, and whatever `body` throws.
    static func withLock<Result>(on fileURL: URL, _ body: () throws -> Result) throws -> Result {
        let processLock = processLock(for: fileURL)
        processLock.lock()
        defer { processLock.unlock() }
        let lockURL = lockFileURL(for: fileURL)
        let descriptor: Int32
        do {
            descriptor = try lockFile(lockURL.path)
        } catch let error as POSIXFileError {
            throw Failure(lockFileURL: lockURL, underlying: error)
        }
        defer { close(descriptor) }
        return try body()
    }

    /// One lock per file in this process, shared by every instance on that file. Entries are never removed:
    /// an app has a handful of such files, and a removed lock could be replaced while in use. A bare `NSLock`
    /// rather than a `Locked<Void>`: it guards the file, not a value, and ThreadSanitizer reported an access
    /// race inside `Locked<Void>.withLock` (on its zero-sized value) under concurrent writers.
    private static let processLocks = Locked([String: NSLock]())

    private static func processLock(for fileURL: URL) -> NSLock {
        let key = fileURL.standardizedFileURL.path
        return processLocks.withLock { locks in
            if let lock = locks[key] { return lock }
            let lock = NSLock()
            locks[key] = lock
            return lock
        }
    }

    /// Opens (creating it 0600 if needed) the lock file and waits for its exclusive `flock`, which is released
    /// when the returned descriptor is closed.
    private static func lockFile(_ path: String) throws -> Int32 {
        let descriptor = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw POSIXFileError.current(operation: "open", path: path) }
        while flock(descriptor, LOCK_EX) != 0 {
            if errno == EINTR { continue }
            let error = POSIXFileError.current(operation: "lock", path: path)
            close(descriptor)
            throw error
        }
        return descriptor
    }
}
