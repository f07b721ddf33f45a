import ConnectionKit
import ConnectionKitTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// An endpoint whose URL parts are given at init.
private final class Composed: ConnectionRequest<Data>, @unchecked Sendable {
    // Safe: immutable after init.
    let base: URL?
    let endpointPath: String
    let items: [URLQueryItem]

    init(base: String?, path: String, items: [URLQueryItem] = []) {
        self.base = base.flatMap { URL(string: $0) }
        self.endpointPath = path
        self.items = items
        super.init()
    }

    override var baseURL: URL? { base }
    override var path: String { endpointPath }
    override var queryItems: [URLQueryItem] { items }
}

@Suite("URL composition", .offThePool, .timeLimit(.minutes(3)))
struct URLCompositionTests {
    private func composed(_ base: String?, _ path: String, _ items: [URLQueryItem] = []) -> String? {
        Composed(base: base, path: path, items: items).url?.absoluteString
    }

    @Test func joinsBaseAndPathWithExactlyOneSlash() {
        #expect(composed("https://api.example.com/v1/", "events.json") == "https://api.example.com/v1/events.json")
        #expect(composed("https://api.example.com/v1", "events.json") == "https://api.example.com/v1/events.json")
        #expect(composed("https://api.example.com/v1/", "/events.json") == "https://api.example.com/v1/events.json")
        #expect(composed("https://api.example.com/v1//", "//events.json") == "https://api.example.com/v1/events.json")
        #expect(composed("https://api.example.com", "events") == "https://api.example.com/events")
        #expect(composed("https://api.example.com/v1/", "users/42/") == "https://api.example.com/v1/users/42/")
    }

    @Test func emptyPathKeepsTheBaseAsItIs() {
        #expect(composed("https://api.example.com/v1/", "") == "https://api.example.com/v1/")
        #expect(composed("https://api.example.com/v1", "") == "https://api.example.com/v1")
    }

    @Test func noBaseURLMeansNoURL() {
        #expect(composed(nil, "events") == nil)
    }

    @Test func percentEncodesSpacesUnicodeAndReservedPathCharacters() {
        #expect(composed("https://h.example/", "my events") == "https://h.example/my%20events")
        #expect(composed("https://h.example/", "café/日本") == "https://h.example/caf%C3%A9/%E6%97%A5%E6%9C%AC")
        #expect(composed("https://h.example/", "a?b#c;d") == "https://h.example/a%3Fb%23c%3Bd")
        // An existing escape is kept, not double-encoded; a lone % is encoded.
        #expect(composed("https://h.example/", "a%20b") == "https://h.example/a%20b")
        #expect(composed("https://h.example/", "100%") == "https://h.example/100%25")
    }

    @Test func queryValuesAreStrictlyEncoded() {
        let items = [
            URLQueryItem(name: "q", value: "a+b&c=d e"),
            URLQueryItem(name: "name", value: "Zoë"),
            URLQueryItem(name: "flag", value: nil),
            URLQueryItem(name: "empty", value: ""),
        ]
        #expect(
            composed("https://h.example/", "search", items)
                == "https://h.example/search?q=a%2Bb%26c%3Dd%20e&name=Zo%C3%AB&flag&empty=")
    }

    @Test func existingQueryOfTheBaseIsKeptFirst() {
        let items = [URLQueryItem(name: "page", value: "2")]
        #expect(
            composed("https://h.example/v1/?key=abc", "events", items) == "https://h.example/v1/events?key=abc&page=2")
        #expect(composed("https://h.example/v1/?key=abc", "events") == "https://h.example/v1/events?key=abc")
    }

    @Test func theServerReceivesTheComposedPathAndQuery() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("GET", "/v1/caf%C3%A9/my%20file") { _ in .text("ok") }
        let request = Composed(
            base: server.url("/v1/").absoluteString, path: "café/my file",
            items: [URLQueryItem(name: "q", value: "1+1=2 & more"), URLQueryItem(name: "ü", value: "ß")])
        request.callbackQueue = DispatchQueue(label: "URLCompositionTests")
        _ = try await request.value()
        let received = try #require(server.receivedRequests("/v1/caf%C3%A9/my%20file").first)
        #expect(received.queryItems == ["q": "1+1=2 & more", "ü": "ß"])
        #expect(received.query == "q=1%2B1%3D2%20%26%20more&%C3%BC=%C3%9F")
    }
}
