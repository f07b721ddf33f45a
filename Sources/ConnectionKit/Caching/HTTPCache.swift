import Foundation

/// A private HTTP cache (RFC 9111): stored responses, the rules that say when they may answer, and the
/// updates that revalidation and unsafe requests make.
///
/// Create one per app, in memory (``inMemory(maximumBytes:)``) or in a folder the app names
/// (``init(folder:maximumBytes:log:)``), and share it between threads. Each call applies RFC 9111 for you:
/// ``lookup(_:now:)`` before a request, ``store(statusCode:headerFields:body:for:requestTime:responseTime:)``
/// after a response, ``revalidated(_:notModifiedHeaderFields:requestTime:responseTime:)`` on a `304`,
/// ``fallback(for:policy:now:)`` when the network failed, and ``invalidate(after:statusCode:headerFields:)``
/// after an unsafe request. What is never stored: responses to other methods than `GET`, `no-store`
/// responses or requests, `Set-Cookie` fields, `Vary: *` responses, `206` partial content.
public final class HTTPCache: Sendable {
    let store: any HTTPCacheStore

    init(store: any HTTPCacheStore) {
        self.store = store
    }

    /// A cache in memory, for tests and short-lived tools: gone when the process ends.
    ///
    /// - Parameter maximumBytes: the bound on stored bodies and fields (default 10 MiB); least recently used
    ///   entries are evicted past it.
    public static func inMemory(maximumBytes: Int = 10 << 20) -> HTTPCache {
        HTTPCache(store: MemoryHTTPCacheStore(maximumBytes: maximumBytes))
    }

    /// A cache in `folder` (created 0700 when missing; the app's caches folder is the place), shared safely
    /// with other processes that open the same folder.
    ///
    /// - Parameters:
    ///   - folder: the folder; refused (a ``ConnectionError`` with ``OfflineQueueError``'s trust reasons) when
    ///     it or a file in it is a link, another user's, or writable by the group or others.
    ///   - maximumBytes: the bound on the entry files' total size (default 50 MiB); least recently used
    ///     entries are evicted past it.
    ///   - log: where a damaged entry that was dropped is reported (default: standard error).
    public init(
        folder: URL, maximumBytes: Int = 50 << 20,
        log: @escaping @Sendable (String) -> Void = HTTPCache.logToStandardError
    ) throws {
        store = try DiskHTTPCacheStore(folder: folder, maximumBytes: maximumBytes, log: log)
    }

    /// The default log of a folder cache: one line on standard error, prefixed `ConnectionKit.HTTPCache:`.
    @Sendable public static func logToStandardError(_ message: String) {
        FileHandle.standardError.write(Data("ConnectionKit.HTTPCache: \(message)\n".utf8))
    }

    /// The bytes stored now (entry sizes; on disk, the files this process knows of).
    public var totalBytes: Int {
        store.totalBytes
    }

    /// Removes every stored response.
    public func removeAll() {
        store.removeAll()
    }
}
