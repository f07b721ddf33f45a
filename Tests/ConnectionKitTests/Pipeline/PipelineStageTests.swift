import Foundation
import Testing

@testable import ConnectionKit

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A GET over a ``ScriptedTransport`` with the stages a test gives it: an authorization (and its refresher),
/// a cookie jar, an HTTP cache.
private final class Staged: ConnectionRequest<Data>, @unchecked Sendable {
    // Safe: only immutable stored properties (the token box is locked).
    let script: ScriptedTransport
    let target: String
    let token: Locked<String>?
    let refresher: AuthorizationRefresher?
    let jar: CookieJar?
    let cache: HTTPCache?

    init(
        _ script: ScriptedTransport, path: String = "/staged", token: Locked<String>? = nil,
        refresher: AuthorizationRefresher? = nil, jar: CookieJar? = nil, cache: HTTPCache? = nil
    ) {
        (self.script, self.target, self.token, self.refresher, self.jar, self.cache) =
            (script, path, token, refresher, jar, cache)
    }

    override var url: URL? { URL(string: "http://127.0.0.1:9\(target)") }
    override var transport: ConnectionTransport { ConnectionTransport(implementation: script, name: "scripted") }
    override var authorization: Authorization? { token.map { .bearer($0.withLock { $0 }) } }
    override var authorizationRefresher: AuthorizationRefresher? { refresher }
    override var cookieJar: CookieJar? { jar }
    override var httpCache: HTTPCache? { cache }
    override var retryPolicy: RetryPolicy { .none }
}

/// The built-in stages (authorization, cookies, cache) as the lifecycle calls them through the run's pipeline
/// (`Pipeline/RunPipeline+Stages.swift`), over the scripted transport: which stage sees what, in which order,
/// and what a stage's answer or take-over leaves to the others. Their wire behaviour is checked against real
/// servers by the authorization, cookie and cache suites.
@Suite("The pipeline's built-in stages, over the scripted transport", .offThePool, .timeLimit(.minutes(2)))
struct PipelineStageTests {
    private static let origin = URL(string: "http://127.0.0.1:9/")!

    private static func body(_ text: String, fields: [String: String] = [:], status: Int = 200)
        -> [ScriptedTransport.Step]
    {
        [.response(status: status, fields: fields), .data(Data(text.utf8)), .complete()]
    }

    @Test(
        "authorization, then the jar's cookies reach the transport; the cache answers the next run without a transfer")
    func stagesPrepareInOrderAndTheCacheAnswers() async throws {
        let script = ScriptedTransport(Self.body("one", fields: ["Cache-Control": "max-age=60"]))
        let jar = CookieJar()
        #expect(jar.store(setCookie: "session=a1", from: Self.origin))
        let cache = HTTPCache.inMemory()
        let token = Locked("t0")

        let first = Staged(script, token: token, jar: jar, cache: cache)
        #expect(try await first.value() == Data("one".utf8))
        #expect(first.responseSource == .network)
        let sent = try #require(script.requests.first)
        #expect(sent.value(forHTTPHeaderField: "Authorization") == "Bearer t0")
        #expect(sent.value(forHTTPHeaderField: "Cookie") == "session=a1")

        let second = Staged(script, token: token, jar: jar, cache: cache)
        #expect(try await second.value() == Data("one".utf8))
        #expect(second.responseSource == .cache)
        #expect(script.requests.count == 1, "the cache answered: nothing below it saw the attempt")
    }

    @Test("the cache comes after the cookies: a jar cookie that changed makes the stored response not answer")
    func theCacheSeesTheJarsCookies() async throws {
        let script = ScriptedTransport(
            scripts: [
                Self.body("for a1", fields: ["Cache-Control": "max-age=60"]),
                Self.body("for b2", fields: ["Cache-Control": "max-age=60"]),
            ])
        let jar = CookieJar()
        #expect(jar.store(setCookie: "session=a1", from: Self.origin))
        let cache = HTTPCache.inMemory()
        #expect(try await Staged(script, jar: jar, cache: cache).value() == Data("for a1".utf8))
        #expect(jar.store(setCookie: "session=b2", from: Self.origin))

        let other = Staged(script, jar: jar, cache: cache)
        #expect(try await other.value() == Data("for b2".utf8))
        #expect(other.responseSource == .network)
        #expect(script.requests.map { $0.value(forHTTPHeaderField: "Cookie") } == ["session=a1", "session=b2"])
    }

    @Test("a 304 to the cache's conditions reaches validation as the stored 200, its body the stored one")
    func aNotModifiedBecomesTheStoredResponse() async throws {
        let script = ScriptedTransport(
            scripts: [
                Self.body("stored", fields: ["Cache-Control": "no-cache", "ETag": "\"v1\""]),
                [.response(status: 304, fields: ["ETag": "\"v1\""]), .complete()],
            ])
        let cache = HTTPCache.inMemory()
        #expect(try await Staged(script, cache: cache).value() == Data("stored".utf8))

        let second = Staged(script, cache: cache)
        #expect(try await second.value() == Data("stored".utf8))
        #expect(second.responseSource == .revalidated)
        #expect(script.requests.map { $0.value(forHTTPHeaderField: "If-None-Match") } == [nil, "\"v1\""])
    }

    @Test("a 401 is taken over once per run: one refresh, the next attempt with the new credential, then the 401")
    func aRefreshTakesOverOncePerRun() async throws {
        let script = ScriptedTransport(Self.body("refused", status: 401))
        let token = Locked("old")
        let refresher = AuthorizationRefresher { token.withLock { $0 = "new" } }

        let error = try await #require(throws: ConnectionError.self) {
            try await Staged(script, token: token, refresher: refresher).value()
        }
        #expect(error.statusCode == 401)
        #expect(refresher.refreshCount == 1)
        #expect(script.requests.map { $0.value(forHTTPHeaderField: "Authorization") } == ["Bearer old", "Bearer new"])
    }

    @Test("each hop of a redirect is prepared by the cookie stage with the cookies of its own URL")
    func eachHopGetsItsOwnCookies() async throws {
        let script = ScriptedTransport(
            scripts: [
                [.response(status: 302, fields: ["Location": "/account/home"]), .complete()],
                Self.body("home"),
            ])
        let jar = CookieJar()
        #expect(jar.store(setCookie: "account=7; Path=/account", from: Self.origin))

        #expect(try await Staged(script, path: "/login", jar: jar).value() == Data("home".utf8))
        #expect(script.requests.map { $0.url?.path } == ["/login", "/account/home"])
        #expect(script.requests.map { $0.value(forHTTPHeaderField: "Cookie") } == [nil, "account=7"])
    }

    @Test("a run the network fails is answered by the cache stage under stale-if-error, after the transfer failed")
    func theCacheAnswersAFailedRun() async throws {
        let script = ScriptedTransport(
            scripts: [
                Self.body("kept", fields: ["Cache-Control": "max-age=0, stale-if-error=600"]),
                [.complete(error: URLError(.cannotConnectToHost))],
            ])
        let cache = HTTPCache.inMemory()
        #expect(try await Staged(script, cache: cache).value() == Data("kept".utf8))

        let second = Staged(script, cache: cache)
        #expect(try await second.value() == Data("kept".utf8))
        #expect(second.responseSource == .staleCache)
        #expect(script.requests.count == 2, "the network was asked first")
    }
}
