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
/// **No lost updates.** Each ``setCredential(_:for:)`` and ``deleteCredential(for:)`` reads the file, changes
/// one account and replaces the file while holding an exclusive advisory lock (`flock`) on a sibling lock
/// file, `.<file name>.lock` (permissions 0600, never followed if it is a symbolic link, kept after use).
/// So any number of instances on one file, in one process or in several (an app and its helper tool, the
/// workers of a service), never lose each other's writes; within a process, writers of one file also wait
/// on one shared in-process lock, so threads do not queue in the kernel. Reads take no lock: they always see
/// a complete file, the one before or after a concurrent write. The lock is advisory: a program that
/// writes the file without ConnectionKit is not held back. On a network file system without working
/// `flock` the guarantee holds only within one machine.
///
/// On Apple platforms prefer `KeychainCredentialStore`; this store is the Linux answer.
public final class FileCredentialStore: CredentialStore {
    /// The file holding the credentials.
    public let fileURL: URL

    /// Creates a store kept in `fileURL`. Nothing is read or written until the first call.
    public init(fileURL: URL) {
        self.fileURL = fileURL
    }

    /// The credential stored for `account`, or `nil` (also when the file does not exist yet).
    public func credential(for account: String) throws -> String? {
        // No lock: the file is only ever replaced by a rename, so a read sees one complete version.
        try readAll()[account]
    }

    /// Stores `credential` for `account`, rewriting the file atomically with permissions 0600, under the
    /// store's lock (see the type's documentation).
    public func setCredential(_ credential: String, for account: String) throws {
        try modify { all in
            all[account] = credential
            return true
        }
    }

    /// Removes the credential for `account`, rewriting the file atomically under the store's lock; a missing
    /// one is not an error.
    public func deleteCredential(for account: String) throws {
        // Without a file there is nothing to delete, and no reason to create the folder and the lock file.
        guard FileManager.default.fileExists(atPath: fileURL.path) else { return }
        try modify { all in all.removeValue(forKey: account) != nil }
    }

    // MARK: - Locking

    /// Reads, changes and replaces the file while holding its ``ExclusiveFileLock``. `change` returns whether
    /// anything changed; when not, nothing is written.
    private func modify(_ change: (inout [String: String]) -> Bool) throws {
        try createFolder()
        do {
            try ExclusiveFileLock.withLock(on: fileURL) {
                var all = try readAll()
                if change(&all) { try writeAll(all) }
            }
        } catch let failure as ExclusiveFileLock.Failure {
            throw CredentialStoreError(.fileSystem(failure.lockFileURL, underlying: failure.underlying))
        }
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

    private func createFolder() throws {
        let folder = fileURL.deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(
                at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw CredentialStoreError(.fileSystem(folder, underlying: error))
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
        let temporary = folder.appendingPathComponent(".\(fileURL.lastPathComponent).\(UUID().uuidString).tmp")
        do {
            try POSIXFile.replace(fileURL, with: data, temporary: temporary)
        } catch {
            throw CredentialStoreError(.fileSystem(fileURL, underlying: error))
        }
    }
}
