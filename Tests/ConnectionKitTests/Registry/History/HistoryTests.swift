import ConnectionKitTesting
import Foundation
import Testing

@testable import ConnectionKit

/// The registry's history records every ended run with redacted fields and per-attempt timings, and
/// answers queries by class (subclasses included), outcome and time.
@Suite(.offThePool, .timeLimit(.minutes(1))) struct HistoryTests {
    let apiKey = "key-\(UUID().uuidString)"
    let token = "tok-\(UUID().uuidString)"
    let cookie = "sid-\(UUID().uuidString)"

    @Test func eachEndingIsRecordedRedactedWithItsAttemptsAndTimings() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        let cookie = self.cookie
        server.route("/ok") { _ in
            TestResponse(
                headers: [TestHeader("Set-Cookie", "s=\(cookie)"), TestHeader("Content-Type", "text/plain")],
                body: .data(Data("hello".utf8)))
        }
        server.route("/flaky") { _ in .status(500) }
        server.route("/hang") { _ in TestResponse(fault: .neverRespond) }
        let headers = ["X-Api-Key": apiKey, "Cookie": "c=\(cookie)", "Accept": "text/plain"]
        let before = Date()
        let ok = HistoryLeafProbe(server.url("/ok?token=\(token)&page=2"), headers: headers)
        let flaky = HistoryProbe(server.url("/flaky"), method: .put, body: Data("abc".utf8))
        let hung = HistorySiblingProbe(server.url("/hang"))
        let endings = EndingRecorder()
        [ok, flaky, hung].forEach { endings.track($0) }
        ok.start()
        flaky.start()
        hung.start()
        #expect(await server.waitForHits("/hang"), "the hanging request reached the server")
        hung.cancel()
        guard await endings.ended() else { return }

        let all = ConnectionRegistry.shared.history(since: before)
        let okRecord = try #require(all.first { $0.identifier == ok.identifier })
        #expect(okRecord.typeName == "HistoryLeafProbe")
        #expect(okRecord.method == "GET")
        #expect(okRecord.outcome == .finished)
        #expect(okRecord.statusCode == 200)
        #expect(okRecord.errorKind == nil)
        #expect(okRecord.attempts == 1 && okRecord.retries == 0)
        #expect(okRecord.responseBodySize == 5)
        #expect(okRecord.redactedURL?.contains("token=<redacted>") == true)
        #expect(okRecord.redactedURL?.contains("page=2") == true)
        #expect(okRecord.requestHeaderFields.contains { $0.name == "X-Api-Key" && $0.value == "<redacted>" })
        #expect(okRecord.requestHeaderFields.contains { $0.name == "Cookie" && $0.value == "<redacted>" })
        #expect(okRecord.requestHeaderFields.contains { $0.name == "Accept" && $0.value == "text/plain" })
        #expect(okRecord.responseHeaderFields.contains { $0.name == "Set-Cookie" && $0.value == "<redacted>" })
        #expect(okRecord.metrics.count == 1)
        let metrics = try #require(okRecord.metrics.first)
        #expect(metrics.responseStart != nil && metrics.end != nil)
        #expect(metrics.start >= okRecord.dateStarted && (metrics.end ?? .distantPast) <= okRecord.dateFinished)
        #expect((metrics.timeToFirstByte ?? -1) >= 0 && (metrics.timeToFirstByte ?? 0) <= (metrics.duration ?? 0))

        let flakyRecord = try #require(all.first { $0.identifier == flaky.identifier })
        #expect(flakyRecord.outcome == .failed)
        #expect(flakyRecord.method == "PUT")
        #expect(flakyRecord.statusCode == 500)
        #expect(flakyRecord.errorKind == "unacceptableStatusCode")
        #expect(flakyRecord.errorMessage?.contains("500") == true)
        #expect(flakyRecord.attempts == 3 && flakyRecord.retries == 2)
        #expect(flakyRecord.metrics.map(\.attempt) == [1, 2, 3])
        #expect(flakyRecord.requestBodySize == 3)

        let hungRecord = try #require(all.first { $0.identifier == hung.identifier })
        #expect(hungRecord.outcome == .cancelled)
        #expect(hungRecord.errorKind == "cancelled")
        #expect(hungRecord.statusCode == nil)
        #expect(hungRecord.metrics.first?.responseStart == nil)
        #expect(hungRecord.metrics.first?.end != nil)

        let text = String(decoding: try JSONEncoder().encode(all), as: UTF8.self)
        for secret in [apiKey, token, cookie] {
            #expect(!text.contains(secret), "a secret leaked into the history")
        }
    }

    @Test func queriesSelectByClassWithSubclassesByOutcomeAndByTime() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/ok") { _ in .text("ok") }
        server.route("/missing") { _ in .status(404) }
        let before = Date()
        let parent = HistoryProbe(server.url("/ok"))
        let leaf = HistoryLeafProbe(server.url("/missing"))
        let sibling = HistorySiblingProbe(server.url("/ok"))
        let endings = EndingRecorder()
        [parent, leaf, sibling].forEach { endings.track($0) }
        [parent, leaf, sibling].forEach { $0.start() }
        guard await endings.ended() else { return }
        let after = Date()
        let ids = Set([parent, leaf, sibling].map(\.identifier))
        func mine(_ records: [ConnectionHistoryRecord]) -> Set<UUID> {
            Set(records.map(\.identifier)).intersection(ids)
        }

        let registry = ConnectionRegistry.shared
        #expect(mine(registry.history(of: HistoryProbe.self)) == [parent.identifier, leaf.identifier])
        #expect(mine(registry.history(of: HistoryLeafProbe.self)) == [leaf.identifier])
        #expect(mine(registry.history(of: HistorySiblingProbe.self)) == [sibling.identifier])
        #expect(mine(registry.history()) == ids)
        #expect(mine(registry.history(of: HistoryProbe.self, outcome: .failed)) == [leaf.identifier])
        #expect(mine(registry.history(outcome: .finished)) == [parent.identifier, sibling.identifier])
        #expect(mine(registry.history(since: before, until: after)) == ids)
        #expect(mine(registry.history(until: before)).isEmpty)
        #expect(mine(registry.history(since: after)).isEmpty)
    }

    @Test func aClassThatOptsInKeepsABodyPreviewWithSecretsScrubbed() async throws {
        DebugCapture.install()
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/echo") { request in .text("you sent key \(request.header("X-Api-Key") ?? "-") and more") }
        let withPreview = PreviewProbe(server.url("/echo"), headers: ["X-Api-Key": apiKey])
        let without = HistoryProbe(server.url("/echo"), headers: ["X-Api-Key": apiKey])
        let endings = EndingRecorder()
        [withPreview, without].forEach { endings.track($0) }
        [withPreview, without].forEach { $0.start() }
        guard await endings.ended() else { return }
        let records = ConnectionRegistry.shared.history(of: HistoryProbe.self)
        let preview = try #require(records.first { $0.identifier == withPreview.identifier }?.responseBodyPreview)
        #expect(preview.contains("you sent key <redacted> and more"))
        #expect(!preview.contains(apiKey))
        #expect(
            records.first { $0.identifier == without.identifier }?.responseBodyPreview == nil, "no opt-in, no preview")
    }
}
