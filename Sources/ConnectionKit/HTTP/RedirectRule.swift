import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// How a request follows a redirect (RFC 9110 §15.4), done by ConnectionKit rather than URLSession
/// so that it behaves the same everywhere: on Linux URLSession drops the body of a 307/308 and
/// forwards `Authorization` to other hosts.
enum RedirectRule {
    static let statuses: Set<Int> = [301, 302, 303, 307, 308]

    /// Whether `response` is a redirect to follow: a redirect status with a `Location`.
    static func isRedirect(_ response: TransportResponse) -> Bool {
        statuses.contains(response.statusCode) && response.head.hasLocation
    }

    /// The request for the next hop, or `nil` when the `Location` is unusable. Crossing to another origin
    /// drops every secret header: `Authorization`, `Proxy-Authorization`, `Cookie` and `secretHeaderFields`.
    static func nextRequest(
        after response: TransportResponse, from previous: URLRequest, secretHeaderFields: Set<String>
    ) -> URLRequest? {
        guard let location = response.head.value(forName: "Location"),
            let resolved = URL(string: location, relativeTo: previous.url)?.absoluteURL,
            let target = withoutServerCredentials(resolved, location)
        else { return nil }
        var next = previous
        next.url = target
        let method = previous.httpMethod?.uppercased() ?? "GET"
        let status = response.statusCode
        if (status == 303 && method != "HEAD") || ((status == 301 || status == 302) && method == "POST") {
            next.httpMethod = "GET"
            next.httpBody = nil
            next.setValue(nil, forHTTPHeaderField: "Content-Type")
            next.setValue(nil, forHTTPHeaderField: "Content-Length")
        }
        if !isSameOrigin(previous.url, target) {
            for name in (next.allHTTPHeaderFields ?? [:]).keys
            where Redaction.isSecretHeader(name, secretHeaderFields: secretHeaderFields) {
                next.setValue(nil, forHTTPHeaderField: name)
            }
        }
        return next
    }

    /// `target` without the user name and password the server wrote into `location` (`http://user:pw@host/`):
    /// both transports would send them as `Authorization: Basic`, credentials the app never gave. `nil`
    /// when they cannot be removed. Userinfo the app's own URL carries (and a relative `location` keeps)
    /// stays.
    private static func withoutServerCredentials(_ target: URL, _ location: String) -> URL? {
        guard let written = URL(string: location), written.user != nil || written.password != nil else { return target }
        guard var components = URLComponents(url: target, resolvingAgainstBaseURL: false) else { return nil }
        components.percentEncodedUser = nil
        components.percentEncodedPassword = nil
        return components.url
    }

    static func isSameOrigin(_ lhs: URL?, _ rhs: URL?) -> Bool {
        guard let lhs, let rhs else { return false }
        return lhs.scheme?.lowercased() == rhs.scheme?.lowercased() && lhs.host?.lowercased() == rhs.host?.lowercased()
            && effectivePort(lhs) == effectivePort(rhs)
    }

    private static func effectivePort(_ url: URL) -> Int? {
        url.port ?? (url.scheme?.lowercased() == "https" ? 443 : 80)
    }
}
