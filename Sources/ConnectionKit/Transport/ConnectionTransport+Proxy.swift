import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension ConnectionTransport {
    /// The schemes of the proxies libcurl speaks to (HTTPS URLs go through an HTTP proxy in a tunnel).
    static let proxySchemes: Set<String> = ["http", "https", "socks4", "socks4a", "socks5", "socks5h"]

    /// The transport that sends through `proxy` (a class's ``AnyConnectionRequest/proxy``), or this one
    /// as is when there is none. A proxy is never ignored: a transport that cannot use it, or a URL
    /// that is not a proxy's, fails the request before anything is sent.
    func implementation(proxy: URL?) throws(ConnectionError) -> any Transport {
        guard let proxy else { return implementation }
        let shown = Self.redactedProxy(proxy)
        guard let scheme = proxy.scheme?.lowercased(), Self.proxySchemes.contains(scheme),
            let host = proxy.host, !host.isEmpty
        else {
            throw ConnectionError(
                .invalidRequest(
                    reason: "proxy \(shown) is not a proxy URL (scheme http, https, socks4, socks4a, socks5 or "
                        + "socks5h, and a host)."))
        }
        #if canImport(CCurlShim)
            if var routed = CurlRoutedTransport.routing(implementation) {
                routed.route.proxy = proxy
                return routed
            }
        #endif
        throw ConnectionError(
            .invalidRequest(
                reason: "proxy \(shown) is set, but the \(name) transport cannot send through a proxy chosen "
                    + "per class; choose the libcurl transport for this class (ConnectionTransport.libcurl(), on Linux)."
            ))
    }

    /// `scheme://host:port` of `proxy`, without its user name and password (and a note that it had some).
    static func redactedProxy(_ proxy: URL) -> String {
        var shown = proxyAddress(proxy)
        if proxy.user != nil || proxy.password != nil { shown += " (credentials \(Redaction.placeholder))" }
        return shown
    }

    /// `scheme://host:port` of `proxy`, without its user name and password; an IPv6 host in brackets.
    static func proxyAddress(_ proxy: URL) -> String {
        let host = proxy.host ?? ""
        var address = (proxy.scheme ?? "") + "://" + (host.contains(":") ? "[\(host)]" : host)
        if let port = proxy.port { address += ":\(port)" }
        return address
    }
}
