import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A ``CredentialStore`` kept in one JSON file, readable and writable by its owner only.
///
/// Every write replaces the file atomically: the new content goes to a temporary file created with
/// permissions 0600 in the same folder, is flushed to disk, then renamed over the old file, so a crash never
/// leaves a half-written file and the secret is never readable by others, not even for a moment. A missing
/// folder is created with permissions 0700. A file that is not a credential file fails with
/// ``CredentialStoreError/Kind/corruptFile(_:)`` (it is never silently overwritten by a read).
///
/// On Apple platforms prefer `KeychainCredentialStore`; this store is the Linux answer.
public final class FileCredentialStore: CredentialStore {
    /// The file holding the credentials.
    public let fileURL: URL

    /// Serialises read-modify-write cycles within the process. A plain lock, as it guards no value: a
    /// `Locked<Void>` puts its empty value at its lock's address, which ThreadSanitizer reports as a race.
    private let lock = NSLock()

    /// Creates a store kept in `fileURL`. Nothing is read or written until the first call.
    public init(fileURL: URL) {
        self.fileURL = fileURL
    }

    /// The credential stored for `account`, or `nil` (also when the file does not exist yet).
    public func credential(for account: String) throws -> String? {
        try serialised { try readAll()[account] }
    }

    /// Stores `credential` for `account`, rewriting the file atomically with permissions 0600.
    public func setCredential(_ credential: String, for account: String) throws {
        try serialised {
            var all = try readAll()
            all[account] = credential
            try writeAll(all)
        }
    }

    /// Removes the credential for `account`, rewriting the file atomically; a missing one is not an error.
    public func deleteCredential(for account: String) throws {
        try serialised {
            var all = try readAll()
            guard all.removeValue(forKey: account) != nil else { return }
            try writeAll(all)
        }
    }

    private func serialised<Result>(_ body: () throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    // MARK: - File

    private func readAll() throws -> [String: String] {
        let data: Data
        do {
            data = try Data(contentsOf: fileURL)
        } catch let error as CocoaError where error.code == .fileReadNoSuchFile {
            return [:]
        } catch {
            if !FileManager.default.fileExists(atPath: fileURL.path) { return [:] }
            throw CredentialStoreError(.fileSystem(fileURL, underlying: error))
        }
        do {
            return try JSONDecoder().decode([String: String].self, from: data)
        } catch {
            throw CredentialStoreError(.corruptFile(fileURL))
        }
    }

    private func writeAll(_ credentials: [String: String]) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data: Data
        do {
            data = try encoder.encode(credentials)
        } catch {
            throw CredentialStoreError(.fileSystem(fileURL, underlying: error))
        }
        let folder = fileURL.deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(
                at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw CredentialStoreError(.fileSystem(folder, underlying: error))
        }
        let temporary = folder.appendingPathComponent(".\(fileURL.lastPathComponent).\(UUID().uuidString).tmp")
        do {
            try Self.writeOwnerOnly(data, to: temporary.path)
            guard rename(temporary.path, fileURL.path) == 0 else { throw Self.posixError() }
        } catch {
            unlink(temporary.path)
            throw CredentialStoreError(.fileSystem(fileURL, underlying: error))
        }
    }

    /// Creates `path` (which must not exist) with permissions 0600, writes `data` and flushes it to disk.
    private static func writeOwnerOnly(_ data: Data, to path: String) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard descriptor >= 0 else { throw posixError() }
        defer { close(descriptor) }
        // The mode given to `open` is reduced by the umask; set it outright.
        guard fchmod(descriptor, 0o600) == 0 else { throw posixError() }
        try data.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress else { return }
            var offset = 0
            while offset < buffer.count {
                let written = write(descriptor, base + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    throw posixError()
                }
                offset += written
            }
        }
        guard fsync(descriptor) == 0 else { throw posixError() }
    }

    private static func posixError() -> any Error {
        POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
    }
}
