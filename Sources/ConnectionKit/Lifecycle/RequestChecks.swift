import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What ConnectionKit checks and adjusts on every request before it is sent.
enum RequestChecks {
    static let supportedSchemes: Set<String> = ["http", "https"]

    /// Throws `invalidRequest` for what cannot be sent; a URL in a reason is redacted as snapshots show it.
    static func check(_ request: inout URLRequest, timeoutInterval: TimeInterval, secretQueryItems: Set<String>) throws
    {
        guard let url = request.url else {
            throw ConnectionError(.invalidRequest(reason: "the URLRequest has no URL."))
        }
        guard let scheme = url.scheme?.lowercased(), supportedSchemes.contains(scheme) else {
            let scheme = url.scheme.map { "'\($0)'" } ?? "no scheme"
            throw ConnectionError(
                .invalidRequest(reason: "\(scheme) is not supported; ConnectionKit sends http and https URLs."))
        }
        guard let host = url.host, !host.isEmpty else {
            let shown = Redaction.redactedURL(url, secretQueryItems: secretQueryItems) ?? ""
            throw ConnectionError(.invalidRequest(reason: "the URL \(shown) has no host."))
        }
        let method = request.httpMethod?.uppercased() ?? "GET"
        if method == "GET" || method == "HEAD", let body = request.httpBody, !body.isEmpty {
            throw ConnectionError(
                .invalidRequest(
                    reason: "a \(method) request cannot carry a body (URLSession refuses it with URLError -1103). "
                        + "Send it as POST, or move the data to query items."))
        }
        guard timeoutInterval > 0, !timeoutInterval.isNaN else {
            throw ConnectionError(.invalidRequest(reason: "timeoutInterval must be positive, not \(timeoutInterval)."))
        }
        // The request enforces it with its own idle timer; a transport may keep one of its own as a
        // backstop, but must let this one fire first.
        // Set only when it differs: every change to a `URLRequest` copies its whole Foundation object.
        if request.timeoutInterval != timeoutInterval { request.timeoutInterval = timeoutInterval }
    }
}
