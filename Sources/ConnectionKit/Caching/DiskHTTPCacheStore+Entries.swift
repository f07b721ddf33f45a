import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reading, writing and evicting entry files.
extension DiskHTTPCacheStore {
    func entry(forKey key: String) -> HTTPCacheEntry? {
        let url = folder.appendingPathComponent(key + Self.suffix)
        var info = stat()
        guard lstat(url.path, &info) == 0 else {
            state.withLock { $0.forget(key) }
            return nil
        }
        let entry: HTTPCacheEntry
        do {
            try OfflineStore.checkTrusted(url, folder: false)
            entry = try HTTPCacheEntry.decode(OfflineStore.readRegularFile(url))
            let own = HTTPCacheRules.key(storedURL: entry.url, partition: entry.partition)
            guard key == own || key == HTTPCacheRules.variantKey(own, vary: entry.vary) else {
                throw HTTPCacheEntry.DamagedError(description: "an entry stored under another entry's name")
            }
        } catch {
            drop(key, reason: "\(error)")
            return nil
        }
        let size = Int(info.st_size)
        state.withLock { $0.record(key, size: size) }
        return entry
    }

    func store(_ entry: HTTPCacheEntry, forKey key: String) {
        let data: Data
        do {
            data = try entry.encoded()
        } catch {
            log("not stored: \(error)")
            return
        }
        guard data.count <= maximumBytes else { return }
        let temporary = folder.appendingPathComponent(Self.temporaryPrefix + UUID().uuidString)
        do {
            // A cache entry need not survive a power cut (a lost one is refetched), so the folder is not
            // synced; the file itself is, by `replace`, so that a rename never exposes unwritten blocks.
            try POSIXFile.replace(fileURL(key), with: data, temporary: temporary, syncFolder: false)
        } catch {
            log("not stored: \(error)")
            return
        }
        let evicted = state.withLock { state -> [String] in
            state.record(key, size: data.count)
            var victims: [String] = []
            while state.totalBytes > maximumBytes,
                let oldest = state.lastUse.filter({ $0.key != key }).min(by: { $0.value < $1.value })?.key
            {
                state.forget(oldest)
                victims.append(oldest)
            }
            return victims
        }
        for victim in evicted { unlink(fileURL(victim).path) }
    }

    func removeEntries(forURLKey urlKey: String) {
        // Other processes may have stored partitions this one never saw: the folder is listed, not the index.
        let names = (try? OfflineStore.names(in: folder)) ?? []
        for name in names where name.hasPrefix(urlKey + "-") {
            guard let key = Self.key(fromFileName: name) else { continue }
            unlink(fileURL(key).path)
            state.withLock { $0.forget(key) }
        }
    }

    func removeAll() {
        let names = (try? OfflineStore.names(in: folder)) ?? []
        for name in names {
            guard let key = Self.key(fromFileName: name) else { continue }
            unlink(fileURL(key).path)
        }
        state.withLock { $0 = State() }
    }

    /// Removes a file that could not be trusted or read, and says so: it is never served.
    private func drop(_ key: String, reason: String) {
        unlink(fileURL(key).path)
        state.withLock { $0.forget(key) }
        log("dropped \(key)\(Self.suffix): \(reason)")
    }
}
