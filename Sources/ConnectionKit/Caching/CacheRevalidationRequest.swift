import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The refresh behind a stale response answered under `stale-while-revalidate` (RFC 5861): the owner's
/// request sent again, on the owner's client, transport, TLS, proxy and cache, with `Cache-Control:
/// no-cache` so that the cache revalidates it (a `304` updates the stored response, a `200` replaces it).
/// Nobody waits for it; it shows in the registry and the history as `CacheRevalidationRequest`.
final class CacheRevalidationRequest: BasicConnectionRequest, @unchecked Sendable {
    // Safe: every value below is immutable and Sendable; the rest lives in the base class's locked storage.
    private let owner: Settings

    /// The owner's hooks, read once when the refresh starts.
    private struct Settings: Sendable {
        let client: ConnectionClient
        let transport: ConnectionTransport
        let tls: TLSConfiguration
        let proxy: URL?
        let timeoutInterval: TimeInterval
        let secretHeaderFields: Set<String>
        let secretQueryItems: Set<String>
        let cookieJar: CookieJar?
        let httpCache: HTTPCache?
        let maximumResponseBodySize: Int64
    }

    private init(request: URLRequest, owner: Settings) {
        self.owner = owner
        super.init()
        var refresh = request
        refresh.setValue("no-cache", forHTTPHeaderField: "Cache-Control")
        self.request = refresh
        callbackQueue = .global(qos: .utility)
    }

    /// Starts the refresh of `request`, the attempt `owner` answered from the cache.
    static func start(for owner: AnyConnectionRequest, request: URLRequest) {
        let settings = Settings(
            client: owner.runClient, transport: owner.transport, tls: owner.tls, proxy: owner.proxy,
            timeoutInterval: owner.timeoutInterval, secretHeaderFields: owner.secretHeaderFields,
            secretQueryItems: owner.secretQueryItems, cookieJar: owner.cookieJar, httpCache: owner.httpCache,
            maximumResponseBodySize: owner.maximumResponseBodySize)
        CacheRevalidationRequest(request: request, owner: settings).start()
    }

    override var client: ConnectionClient { owner.client }
    override var transport: ConnectionTransport { owner.transport }
    override var tls: TLSConfiguration { owner.tls }
    override var proxy: URL? { owner.proxy }
    override var timeoutInterval: TimeInterval { owner.timeoutInterval }
    override var secretHeaderFields: Set<String> { owner.secretHeaderFields }
    override var secretQueryItems: Set<String> { owner.secretQueryItems }
    override var cookieJar: CookieJar? { owner.cookieJar }
    override var httpCache: HTTPCache? { owner.httpCache }
    override var cachePolicy: HTTPCachePolicy { .useCache }
    override var maximumResponseBodySize: Int64 { owner.maximumResponseBodySize }
}
