import Foundation

/// Where a response is stored: its URL without secrets, and the partition its credentials select.
extension HTTPCacheRules {
    /// Hex SHA-256 of `text`.
    static func digest(_ text: String) -> String {
        SHA256.hex(SHA256.hash(Array(text.utf8)))
    }

    /// The URL as stored: without its fragment and without the request's secret query items.
    static func storedURL(_ request: HTTPCacheRequest) -> String {
        // Most requests have neither: a hit then parses no components.
        if request.url.fragment == nil && (request.secretQueryItemNames.isEmpty || request.url.query == nil) {
            return request.url.absoluteString
        }
        guard var components = URLComponents(url: request.url, resolvingAgainstBaseURL: true) else {
            return request.url.absoluteString
        }
        components.fragment = nil
        if let items = components.queryItems, !request.secretQueryItemNames.isEmpty {
            let kept = items.filter { !request.secretQueryItemNames.contains($0.name) }
            components.queryItems = kept.isEmpty ? nil : kept
        }
        return components.string ?? request.url.absoluteString
    }

    /// A digest of the request's credentials (its secret header fields and secret query items), or empty
    /// when it has none: a response stored under one partition answers only requests of the same one.
    static func partition(of request: HTTPCacheRequest) -> String {
        var material = ""
        for name in request.secretHeaderNames.sorted() {
            if let value = request.headerFields[name] { material += "h\u{0}\(name)\u{0}\(value)\u{0}" }
        }
        let items =
            request.secretQueryItemNames.isEmpty
            ? [] : URLComponents(url: request.url, resolvingAgainstBaseURL: true)?.queryItems ?? []
        for item in items where request.secretQueryItemNames.contains(item.name) {
            material += "q\u{0}\(item.name)\u{0}\(item.value ?? "")\u{0}"
        }
        return material.isEmpty ? "" : digest(material)
    }

    /// The key of the stored URL alone (every partition's entries for it share it): hex SHA-256, 32 digits.
    static func urlKey(_ storedURL: String) -> String {
        String(digest("GET \(storedURL)").prefix(32))
    }

    /// The key of one stored response: ``urlKey(_:)``, a dash, and 16 hex digits of the partition.
    static func key(storedURL: String, partition: String) -> String {
        let partitionKey = partition.isEmpty ? noPartitionKey : String(digest("p\(partition)").prefix(16))
        return "\(urlKey(storedURL))-\(partitionKey)"
    }

    /// The key of one variant of a response that varies: `key` (``key(storedURL:partition:)``), a dash, and
    /// 16 hex digits of the selecting fields' values (an absent field differs from an empty one).
    static func variantKey(_ key: String, vary: [HTTPCacheEntry.VaryValue]) -> String {
        var material = ""
        for field in vary { material += "\(field.name)\u{0}\(field.value.map { "=" + $0 } ?? "-")\u{0}" }
        return "\(key)-\(digest(material).prefix(16))"
    }

    /// The partition part of the key of a request without credentials (most of them), computed once.
    private static let noPartitionKey = String(digest("p").prefix(16))

    // MARK: - Invalidation (RFC 9111 §4.4)

    /// The URLs whose stored responses a request's answer invalidates: for an unsafe method answered with a
    /// 2xx or 3xx, its own URL and its `Location` and `Content-Location` when they have the same origin.
    static func invalidatedURLs(request: HTTPCacheRequest, status: Int, headers: [String: String]) -> [String] {
        guard !safeMethods.contains(request.method), (200...399).contains(status) else { return [] }
        let fields = normalized(headers)
        var urls = [storedURL(request)]
        for name in ["location", "content-location"] {
            guard let value = fields[name], let target = URL(string: value, relativeTo: request.url)?.absoluteURL,
                sameOrigin(target, request.url)
            else { continue }
            urls.append(storedURL(HTTPCacheRequest(url: target, secretQueryItemNames: request.secretQueryItemNames)))
        }
        return urls
    }

    static func sameOrigin(_ first: URL, _ second: URL) -> Bool {
        func origin(_ url: URL) -> (String, String, Int)? {
            guard let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased() else { return nil }
            return (scheme, host, url.port ?? (scheme == "https" ? 443 : 80))
        }
        guard let one = origin(first), let two = origin(second) else { return false }
        return one == two
    }
}
