import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension ConnectionTransport {
    /// The schemes of the proxies a transport may be asked to use: those libcurl speaks to (HTTPS URLs go
    /// through an HTTP proxy in a tunnel).
    static let proxySchemes: Set<String> = ["http", "https", "socks4", "socks4a", "socks5", "socks5h"]

    /// `proxy` (a class's ``AnyConnectionRequest/proxy``) once it is checked to be a proxy's URL, for
    /// ``TransferOptions/proxy``; `nil` when there is none. Whether the transport can send through it is
    /// the transport's to say (``Transport/prepareTransfer(_:options:)``). A proxy is never ignored: a
    /// URL that is not a proxy's fails the request before anything is sent, whatever the transport.
    static func checkedProxy(_ proxy: URL?) throws(ConnectionError) -> URL? {
        guard let proxy else { return nil }
        guard let scheme = proxy.scheme?.lowercased(), proxySchemes.contains(scheme),
            let host = proxy.host, !host.isEmpty
        else {
            throw ConnectionError(
                .invalidRequest(
                    reason: "proxy \(redactedProxy(proxy)) is not a proxy URL (scheme http, https, socks4, socks4a, "
                        + "socks5 or socks5h, and a host)."))
        }
        return proxy
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
