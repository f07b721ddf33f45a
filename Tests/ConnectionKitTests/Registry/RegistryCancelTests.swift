import ConnectionKit
import ConnectionKitTesting
import Foundation
import Testing

@Suite(.offThePool, .serialized, .exclusive, .timeLimit(.minutes(20))) struct RegistryCancelTests {
    @Test func cancelByClassHitsTheClassAndItsSubclassesOnly() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/hang") { _ in TestResponse(fault: .neverRespond) }
        let url = server.url("/hang")
        let feed = FeedProbe(url)
        let news = NewsFeedProbe(url)
        let breaking = BreakingNewsProbe(url)
        let profile = ProfileProbe(url)
        let cancelled = EndingRecorder()
        let survivors = EndingRecorder()
        cancelled.track(news)
        cancelled.track(breaking)
        survivors.track(feed)
        survivors.track(profile)
        [feed, news, breaking, profile].forEach { $0.start() }

        let began = Date()
        ConnectionRegistry.shared.cancelAll(NewsFeedProbe.self)
        #expect(Date().timeIntervalSince(began) < 1, "cancelAll returns at once")
        guard await cancelled.ended() else { return }

        for request in [news, breaking] {
            #expect(cancelled.count(request) == 1)
            #expect((cancelled.error(request) as? ConnectionError)?.isCancelled == true)
            #expect(request.state == .cancelled)
        }
        #expect(feed.state == .running)
        #expect(profile.state == .running)
        #expect(
            ConnectionRegistry.shared.requests(of: FeedProbe.self).map(ObjectIdentifier.init) == [
                ObjectIdentifier(feed)
            ])
        #expect(!ConnectionRegistry.shared.isInUse(NewsFeedProbe.self))
        #expect(ConnectionRegistry.shared.isInUse(ProfileProbe.self))

        ConnectionRegistry.shared.cancelAll(FeedProbe.self)
        #expect(profile.state == .running, "a sibling class is not a subclass")
        profile.cancel()
        guard await survivors.ended() else { return }
        #expect(survivors.count(feed) == 1)
        #expect(survivors.count(profile) == 1)
        #expect(cancelled.allCounts.allSatisfy { $0 == 1 })
        #expect(!ConnectionRegistry.shared.isInUse(FeedProbe.self))
        #expect(!ConnectionRegistry.shared.isInUse(ProfileProbe.self))
    }

    @Test func cancelAllMatchesTheDynamicClassOfAMetatypeHeldAsTheRoot() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/hang") { _ in TestResponse(fault: .neverRespond) }
        let news = NewsFeedProbe(server.url("/hang"))
        let profile = ProfileProbe(server.url("/hang"))
        let endings = EndingRecorder()
        endings.track(news)
        endings.track(profile)
        news.start()
        profile.start()
        let type: AnyConnectionRequest.Type = FeedProbe.self
        ConnectionRegistry.shared.cancelAll(type)
        #expect(profile.state == .running)
        profile.cancel()
        guard await endings.ended() else { return }
        #expect((endings.error(news) as? ConnectionError)?.isCancelled == true)
        #expect(endings.allCounts == [1, 1])
    }
}
