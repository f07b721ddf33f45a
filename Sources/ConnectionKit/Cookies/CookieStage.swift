import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The cookie-jar stage: adds the class's ``CookieJar`` cookies to each request it sends (every hop of a
/// redirect, for the hop's own URL) after the cookies the request set itself, and stores the `Set-Cookie`
/// fields of each response against the URL that hop was sent to.
final class CookieStage: PipelineStage, @unchecked Sendable {
    // Safe: `jar` is immutable and thread-safe; `ownHeader` is locked.
    private let jar: CookieJar
    /// The `Cookie` header the current hop's request set itself, before the jar added its cookies: the next
    /// hop of a redirect starts from it. `.none` when this stage prepared no hop of the attempt (a
    /// middleware answered it).
    private let ownHeader = Locked<String??>(nil)

    init(jar: CookieJar) {
        self.jar = jar
    }

    func attemptStarted() {
        ownHeader.withLock { $0 = .none }
    }

    func prepareAttempt(_ request: inout URLRequest, owner: AnyConnectionRequest) throws -> StageAnswer? {
        addCookies(to: &request)
        return nil
    }

    /// The next hop starts from the request's own cookies; ``prepareHop(_:owner:)`` adds those of its URL.
    func redirecting(from previous: URLRequest) -> URLRequest {
        guard case .some(let own) = ownHeader.withLock({ $0 }) else { return previous }
        var request = previous
        request.setValue(own, forHTTPHeaderField: "Cookie")
        return request
    }

    func prepareHop(_ request: inout URLRequest, owner: AnyConnectionRequest) {
        addCookies(to: &request)
    }

    /// Stores the response's `Set-Cookie` fields, one at a time where the transport kept them apart, in the
    /// order received, against the URL the hop was sent to, before a redirect's next hop is built.
    func received(_ response: TransportResponse, owner: AnyConnectionRequest) {
        let setCookies = response.head.values(forName: "Set-Cookie")
        guard !setCookies.isEmpty, let url = owner.storage.withLock({ $0.sentRequest?.url }) else { return }
        jar.store(setCookieFields: setCookies, from: url)
    }

    /// Notes the request's own `Cookie` header, then adds the jar's cookies for its URL (RFC 6265 §5.4) after
    /// them; a name the request set is not added again.
    private func addCookies(to request: inout URLRequest) {
        let own = request.value(forHTTPHeaderField: "Cookie")
        ownHeader.withLock { $0 = .some(own) }
        guard let url = request.url, let merged = Self.mergedCookieHeader(own: own, jar: jar.cookies(for: url))
        else { return }
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
}
