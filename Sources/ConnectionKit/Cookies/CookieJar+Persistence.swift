import Foundation

extension CookieJar {
    /// What a cookie file holds: its format's name and version, then the persistent cookies.
    private struct File: Codable {
        var format = CookieJar.fileFormat
        var version = 1
        var cookies: [Cookie]
    }

    static let fileFormat = "ConnectionKit cookie jar"

    /// Writes the jar's persistent cookies that have not expired to its file, replacing it atomically with
    /// permissions 0600 (a missing folder is made 0700), under the lock other processes using the file respect.
    /// Session cookies are never written: they live as long as the jar. Throws ``CookieJarError``.
    public func save() throws {
        guard let fileURL else { throw CookieJarError(.noFile) }
        let now = Date()
        let cookies = state.withLock { state in
            state.purgeExpired(now: now)
            return state.all.filter { !$0.isSession }
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let sorted = cookies.sorted { ($0.domain, $0.path, $0.name) < ($1.domain, $1.path, $1.name) }
        let data: Data
        do {
            data = try encoder.encode(File(cookies: sorted))
        } catch {
            throw CookieJarError(.fileSystem(fileURL, underlying: error))
        }
        let folder = fileURL.deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(
                at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw CookieJarError(.fileSystem(folder, underlying: error))
        }
        let temporary = folder.appendingPathComponent(".\(fileURL.lastPathComponent).\(UUID().uuidString).tmp")
        do {
            try ExclusiveFileLock.withLock(on: fileURL) {
                try POSIXFile.replace(fileURL, with: data, temporary: temporary)
            }
        } catch let failure as ExclusiveFileLock.Failure {
            throw CookieJarError(.fileSystem(failure.lockFileURL, underlying: failure.underlying))
        } catch {
            throw CookieJarError(.fileSystem(fileURL, underlying: error))
        }
    }

    /// Reads the jar's file into the jar, skipping expired and session cookies; a missing file is an empty jar.
    func load() throws {
        guard let fileURL else { return }
        let data: Data
        do {
            data = try Data(contentsOf: fileURL)
        } catch {
            if !FileManager.default.fileExists(atPath: fileURL.path) { return }
            throw CookieJarError(.fileSystem(fileURL, underlying: error))
        }
        guard let file = try? JSONDecoder().decode(File.self, from: data), file.format == Self.fileFormat,
            file.version == 1
        else { throw CookieJarError(.corruptFile(fileURL)) }
        let now = Date()
        let limits = (perDomain: maximumCookiesPerDomain, total: maximumCookies)
        state.withLock { state in
            for cookie in file.cookies where !cookie.isSession && !cookie.isExpired(at: now) && cookie.canBeSent {
                _ = state.insert(cookie, fromSecureOrigin: true, now: now, limits: limits)
            }
        }
    }
}
