import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Trust in the queue's folder: what `init` checks, and reads that never follow a link.
extension OfflineStore {
    // MARK: - Trust

    static func refusal(_ kind: OfflineQueueError.Kind) -> ConnectionError {
        ConnectionError(.fileSystem(underlying: OfflineQueueError(kind)))
    }

    /// Creates `folder` (0700) when missing, then checks it. Returns whether this call created it: its entry in
    /// the folder above is durable only once that folder is synced.
    @discardableResult
    static func makeTrustedFolder(_ folder: URL) throws -> Bool {
        var info = stat()
        var created = false
        if lstat(folder.path, &info) != 0 {
            guard errno == ENOENT else { throw posixError("inspect \(folder.path)") }
            if mkdir(folder.path, 0o700) == 0 {
                created = true
            } else if errno != EEXIST {
                throw posixError("create folder \(folder.path)")
            }
        }
        try checkTrusted(folder, folder: true)
        return created
    }

    /// Refuses a link, something of the wrong type, another user's, or one the group or others may write.
    static func checkTrusted(_ url: URL, folder: Bool) throws {
        var info = stat()
        guard lstat(url.path, &info) == 0 else { throw posixError("inspect \(url.path)") }
        let type = info.st_mode & S_IFMT
        if type == S_IFLNK { throw refusal(.symbolicLink(url)) }
        guard type == (folder ? S_IFDIR : S_IFREG) else { throw refusal(.notARegularFile(url)) }
        guard info.st_uid == geteuid() else { throw refusal(.ownedByAnotherUser(url, owner: Int(info.st_uid))) }
        let permissions = Int(info.st_mode & 0o7777)
        if permissions & 0o022 != 0 { throw refusal(.writableByOthers(url, mode: permissions)) }
    }

    static func names(in folder: URL) throws -> [String] {
        do {
            return try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        } catch {
            throw ConnectionError(.fileSystem(underlying: POSIXFileError.offlineQueue(error)))
        }
    }

    /// Whether `name` may name a body file: a bare name the queue itself makes, never a path.
    static func isBodyFileName(_ name: String) -> Bool {
        guard name.hasSuffix(".body"), name.utf8.count <= 64 else { return false }
        let stem = name.dropLast(".body".count)
        return !stem.isEmpty
            && stem.unicodeScalars.allSatisfy {
                ("0"..."9").contains($0) || ("A"..."F").contains($0) || ("a"..."f").contains($0) || $0 == "-"
            }
    }

    /// Reads a regular file without following a link.
    static func readRegularFile(_ url: URL) throws -> Data {
        let descriptor = open(url.path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard descriptor >= 0 else {
            if errno == ELOOP { throw refusal(.symbolicLink(url)) }
            throw posixError("open \(url.path)")
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw posixError("stat \(url.path)") }
        guard info.st_mode & S_IFMT == S_IFREG else { throw refusal(.notARegularFile(url)) }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw posixError("read \(url.path)")
            }
            if count == 0 { return data }
            data.append(contentsOf: buffer[0..<count])
        }
    }
}
