import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension AnyConnectionRequest {
    // MARK: - Cookie jar

    /// Adds the ``cookieJar``'s cookies for the request's URL to its `Cookie` header (RFC 6265 §5.4), after
    /// the cookies the request set itself; a name the request set is not added again. No jar, no change.
    func addJarCookies(to request: inout URLRequest) {
        guard let jar = cookieJar, let url = request.url else { return }
        let own = request.value(forHTTPHeaderField: "Cookie")
        guard let merged = Self.mergedCookieHeader(own: own, jar: jar.cookies(for: url)) else { return }
        request.setValue(merged, forHTTPHeaderField: "Cookie")
    }

    /// `own` followed by the `jar` cookies whose names `own` does not hold; `nil` when both are empty.
    static func mergedCookieHeader(own: String?, jar: [Cookie]) -> String? {
        let own = own.map { SetCookie.trimmed($0[...]) }.flatMap { $0.isEmpty ? nil : $0 }
        guard let own else { return CookieJar.header(for: jar) }
        let ownNames = Set(
            own.split(separator: ";").map { pair in SetCookie.trimmed(pair.prefix { $0 != "=" }) })
        let added = CookieJar.header(for: jar.filter { !ownNames.contains($0.name) })
        return added.map { own + "; " + $0 } ?? own
    }

    /// Stores the `Set-Cookie` fields of the current transfer's response in the ``cookieJar``, one field at a
    /// time where the transport kept them apart, in the order received, against the URL the transfer was
    /// sent to (each hop of a redirect its own), before a redirect's next hop is built.
    func storeJarCookies(from head: ResponseHead) {
        guard let jar = cookieJar else { return }
        let setCookies = head.values(forName: "Set-Cookie")
        guard !setCookies.isEmpty, let url = storage.withLock({ $0.sentRequest?.url }) else { return }
        jar.store(setCookieFields: setCookies, from: url)
    }

    /// `request` with `value` as its `Cookie` header (none when `nil`).
    static func replacingCookieHeader(of request: URLRequest, with value: String?) -> URLRequest {
        var request = request
        request.setValue(value, forHTTPHeaderField: "Cookie")
        return request
    }
}
