import ConnectionKitTesting
import Foundation

/// httpbin's cookie routes on a loopback ``TestServer``: `/cookies/set?name=value&…` answers 302 to
/// `/cookies` with one `Set-Cookie` per query item (`Path=/`), `/cookies/delete?name&…` answers 302 with
/// `Max-Age=0` for each, and `/cookies` answers `{"cookies": {…}}` with the cookies the request sent.
enum CookieRoutes {
    static func install(on server: TestServer) {
        server.route("/cookies/set") { request in
            var response = TestResponse.redirect(to: "/cookies")
            for (name, value) in orderedQuery(request) {
                response.headers.append(TestHeader("Set-Cookie", "\(name)=\(value); Path=/"))
            }
            return response
        }
        server.route("/cookies/delete") { request in
            var response = TestResponse.redirect(to: "/cookies")
            for (name, _) in orderedQuery(request) {
                response.headers.append(TestHeader("Set-Cookie", "\(name)=; Max-Age=0; Path=/"))
            }
            return response
        }
        server.route("/cookies") { request in
            .json(["cookies": received(request)])
        }
    }

    /// The cookies a request sent, by name.
    static func received(_ request: TestRequest) -> [String: String] {
        var cookies: [String: String] = [:]
        for pair in (request.header("Cookie") ?? "").split(separator: ";") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = parts[0].trimmingCharacters(in: .whitespaces)
            guard !name.isEmpty else { continue }
            cookies[name] = parts.count > 1 ? String(parts[1]) : ""
        }
        return cookies
    }

    private static func orderedQuery(_ request: TestRequest) -> [(String, String)] {
        (request.query ?? "").split(separator: "&").map { item in
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return (String(parts[0]), parts.count > 1 ? String(parts[1]) : "")
        }
    }
}
