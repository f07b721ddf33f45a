import ConnectionKit
import Foundation

/// A cookie jar holding 10,000 cookies (2,000 sites, five cookies each, on the site and on a subdomain):
/// the time of one lookup, the `Cookie` header for a request, against a linear scan of the same cookies
/// by the same rules (what a jar without a domain index costs). The jar reads only the buckets of the
/// request's host and its parent domains.
enum CookieLookup: Benchmark {
    static let name = "cookies"

    static let sites = 2000

    static func run(_ options: Options) throws -> [Row] {
        let jar = CookieJar(maximumCookiesPerDomain: 50, maximumCookies: 10_000)
        for site in 0..<sites {
            let url = URL(string: "https://api.site\(site).example/v1/items")!
            for index in 0..<5 {
                let domain = index < 2 ? "; Domain=site\(site).example" : ""
                jar.store(setCookie: "c\(index)=value-\(site)-\(index); Path=/\(domain)", from: url)
            }
        }
        let stored = jar.allCookies
        guard stored.count == sites * 5 else { throw BenchmarkError("stored \(stored.count) cookies, not 10,000") }
        let lookups = options.quick ? 2000 : 20_000
        let urls = (0..<lookups).map { URL(string: "https://api.site\(($0 * 7919) % sites).example/v1/items/\($0)")! }
        var kit: [Double] = []
        var scan: [Double] = []
        for _ in 0..<options.rounds {
            kit.append(try measure(urls) { jar.cookieHeader(for: $0) })
            scan.append(try measure(Array(urls.prefix(lookups / 10))) { linearScan(stored, for: $0) })
        }
        return [
            Row(
                "cookie lookup in a jar of 10,000", unit: "µs", raw: scan, connectionKit: kit,
                goal: .connectionKitBelow(50))
        ]
    }

    /// Microseconds per lookup over `urls`; each must find the five cookies of its site.
    private static func measure(_ urls: [URL], _ lookup: (URL) -> String?) throws -> Double {
        let start = Driver.now()
        var found = 0
        for url in urls {
            found += lookup(url)?.split(separator: ";").count ?? 0
        }
        let elapsed = Driver.now() - start
        guard found == urls.count * 5 else { throw BenchmarkError("found \(found) cookies, not \(urls.count * 5)") }
        return elapsed / Double(urls.count) * 1e6
    }

    /// The same answer by reading every cookie: domain match (RFC 6265 §5.1.3) and path match.
    private static func linearScan(_ cookies: [Cookie], for url: URL) -> String? {
        guard let host = url.host else { return nil }
        let path = url.path
        let matching = cookies.filter { cookie in
            let domainMatches =
                cookie.isHostOnly ? host == cookie.domain : host == cookie.domain || host.hasSuffix("." + cookie.domain)
            return domainMatches && path.hasPrefix(cookie.path)
        }
        return matching.isEmpty ? nil : matching.map { "\($0.name)=\($0.value)" }.joined(separator: "; ")
    }
}
