import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Every call by which the offline queue changes its folder: creating and writing files, making them
/// durable, renaming and removing them. Reads and trust checks go to the system directly.
///
/// One layer so that a test can replace it: the power-loss test records, per file and folder, what was
/// written and what was made durable, and rebuilds the folder as a power cut could leave it. Functions that
/// return `Bool` leave `errno` set when they return `false`.
protocol OfflineFileOperations: Sendable {
    /// `open(2)` with `O_CREAT | O_RDWR | O_CLOEXEC | O_NOFOLLOW`, mode 0600: a journal segment.
    func openForAppending(_ path: String) -> Int32
    /// Writes all of `data` at `offset`.
    func write(_ data: Data, to descriptor: Int32, at offset: Int) -> Bool
    /// `fdatasync` (or `fsync` where there is none): the file's data is durable.
    func syncData(_ descriptor: Int32) -> Bool
    func close(_ descriptor: Int32)
    /// ``POSIXFile/replace(_:with:temporary:syncFolder:)``: a new file, written, synced and renamed into place.
    func replace(_ target: URL, with data: Data, temporary: URL, syncFolder: Bool) throws
    /// `fsync` of a folder: its creations, renames and removals are durable.
    func syncFolder(_ folder: URL) throws
    func rename(_ source: String, to target: String) -> Bool
    @discardableResult
    func unlink(_ path: String) -> Bool
}

/// The system's calls: what every queue uses outside tests.
struct POSIXOfflineFileOperations: OfflineFileOperations {
    func openForAppending(_ path: String) -> Int32 {
        open(path, O_CREAT | O_RDWR | O_CLOEXEC | O_NOFOLLOW, 0o600)
    }

    func write(_ data: Data, to descriptor: Int32, at offset: Int) -> Bool {
        POSIXFile.writeAll(data, to: descriptor, at: offset)
    }

    func syncData(_ descriptor: Int32) -> Bool {
        #if canImport(Glibc) || canImport(Musl)
            return fdatasync(descriptor) == 0
        #else
            return fsync(descriptor) == 0
        #endif
    }

    func close(_ descriptor: Int32) {
        _ = systemClose(descriptor)
    }

    func replace(_ target: URL, with data: Data, temporary: URL, syncFolder: Bool) throws {
        try POSIXFile.replace(target, with: data, temporary: temporary, syncFolder: syncFolder)
    }

    func syncFolder(_ folder: URL) throws {
        try POSIXFile.syncFolder(folder)
    }

    func rename(_ source: String, to target: String) -> Bool {
        systemRename(source, target) == 0
    }

    func unlink(_ path: String) -> Bool {
        systemUnlink(path) == 0
    }
}

// The system's functions, reachable from the methods above that share their names.
private func systemClose(_ descriptor: Int32) -> Int32 { close(descriptor) }
private func systemRename(_ source: String, _ target: String) -> Int32 { rename(source, target) }
private func systemUnlink(_ path: String) -> Int32 { unlink(path) }
