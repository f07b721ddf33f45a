import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Entries as files in a folder the app names, one file `<key>.entry` each, bounded by their total size.
///
/// The folder is trusted as the offline queue's is (``OfflineStore/checkTrusted(_:folder:)``): created 0700,
/// refused when it or an entry is a link, another user's, or writable by the group or others. A file is
/// written to a temporary name and renamed into place, so a reader, in this process or another, sees the old
/// entry or the new one, never a mix; a torn or damaged file fails its checksum, is removed and logged.
/// Least recently used entries are evicted past `maximumBytes`; the order is this process's uses, seeded from
/// the files' modification times when the store opens (another process's uses are not seen).
final class DiskHTTPCacheStore: HTTPCacheStore {
    struct State {
        var sizes: [String: Int] = [:]
        var lastUse: [String: UInt64] = [:]
        var totalBytes = 0
        var clock: UInt64 = 0

        mutating func record(_ key: String, size: Int) {
            totalBytes += size - (sizes.updateValue(size, forKey: key) ?? 0)
            clock += 1
            lastUse[key] = clock
        }

        mutating func forget(_ key: String) {
            totalBytes -= sizes.removeValue(forKey: key) ?? 0
            lastUse[key] = nil
        }
    }

    static let suffix = ".entry"
    static let temporaryPrefix = ".tmp-"
    /// A temporary file older than this was left by a process that died while writing: removed on open.
    static let abandonedAge: TimeInterval = 3_600

    let folder: URL
    let maximumBytes: Int
    let log: @Sendable (String) -> Void
    let state = Locked(State())

    /// Opens (creating when needed) the store in `folder` and checks that it can be trusted.
    init(folder: URL, maximumBytes: Int, log: @escaping @Sendable (String) -> Void) throws {
        self.folder = folder
        self.maximumBytes = max(0, maximumBytes)
        self.log = log
        try OfflineStore.makeTrustedFolder(folder)
        var found: [(key: String, size: Int, modified: Date)] = []
        for name in try OfflineStore.names(in: folder) {
            let url = folder.appendingPathComponent(name)
            guard try Self.checkListed(url) else { continue }
            let attributes = try? FileManager.default.attributesOfItem(atPath: url.path)
            let modified = attributes?[.modificationDate] as? Date ?? .distantPast
            if name.hasPrefix(Self.temporaryPrefix) {
                if Date().timeIntervalSince(modified) > Self.abandonedAge { unlink(url.path) }
                continue
            }
            guard let key = Self.key(fromFileName: name) else { continue }
            found.append((key, (attributes?[.size] as? NSNumber)?.intValue ?? 0, modified))
        }
        state.withLock { state in
            for item in found.sorted(by: { $0.modified < $1.modified }) { state.record(item.key, size: item.size) }
        }
    }

    /// Checks a file the folder listed; `false` when it is gone since the listing (another process renamed
    /// its write into place, or evicted it): a file that vanished is no reason to refuse the folder.
    private static func checkListed(_ url: URL) throws -> Bool {
        do {
            try OfflineStore.checkTrusted(url, folder: false)
            return true
        } catch {
            var info = stat()
            if lstat(url.path, &info) != 0 && errno == ENOENT { return false }
            throw error
        }
    }

    /// The key a file name holds, or `nil` for a name this store never makes.
    static func key(fromFileName name: String) -> String? {
        guard name.hasSuffix(suffix) else { return nil }
        let key = String(name.dropLast(suffix.count))
        let parts = key.split(separator: "-", omittingEmptySubsequences: false)
        let isHex = { (part: Substring) in
            part.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
        }
        // `<url>-<partition>`, or `<url>-<partition>-<variant>` for one variant of a response that varies.
        guard parts.count == 2 || (parts.count == 3 && parts[2].utf8.count == 16), parts[0].utf8.count == 32,
            parts[1].utf8.count == 16, parts.allSatisfy(isHex)
        else {
            return nil
        }
        return key
    }

    func fileURL(_ key: String) -> URL {
        folder.appendingPathComponent(key + Self.suffix)
    }

    var totalBytes: Int {
        state.withLock { $0.totalBytes }
    }
}
