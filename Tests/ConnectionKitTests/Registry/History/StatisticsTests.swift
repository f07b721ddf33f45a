import ConnectionKitTesting
import Foundation
import Testing

@testable import ConnectionKit

/// Per-class statistics: counts by outcome and error kind, retries, bytes and latency percentiles,
/// in fixed memory; the history keeps only its capacity's worth of runs, however many end.
@Suite(.offThePool, .timeLimit(.minutes(2))) struct StatisticsTests {
    @Test func realRunsAreCountedByOutcomeKindRetriesAndBytes() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/ok") { _ in .text("12345678") }
        server.route("/broken") { _ in .status(503) }
        server.route("/bad") { _ in .status(404) }
        let requests = [
            StatisticsProbe(server.url("/ok")), StatisticsProbe(server.url("/ok")),
            StatisticsProbe(server.url("/broken")),
            StatisticsProbe(server.url("/bad"), method: .post, body: Data("xy".utf8)),
        ]
        let before = ConnectionRegistry.shared.statistics(of: StatisticsProbe.self)
        let endings = EndingRecorder()
        requests.forEach { endings.track($0) }
        requests.forEach { $0.start() }
        guard await endings.ended() else { return }
        let after = try #require(ConnectionRegistry.shared.statistics(of: StatisticsProbe.self))
        #expect(after.typeName == "StatisticsProbe")
        #expect(after.requests - (before?.requests ?? 0) == 4)
        #expect(after.successes - (before?.successes ?? 0) == 2)
        #expect(after.failures - (before?.failures ?? 0) == 2)
        #expect(
            after.failuresByKind["unacceptableStatusCode", default: 0]
                - (before?.failuresByKind["unacceptableStatusCode"] ?? 0) == 2)
        // 503 is retried twice by HistoryProbe's policy; 404 is not.
        #expect(after.retries - (before?.retries ?? 0) == 2)
        #expect(after.bytesReceived - (before?.bytesReceived ?? 0) == 16)
        #expect(after.bytesSent - (before?.bytesSent ?? 0) == 2)
        #expect(after.latency.max > 0 && after.latency.p50 <= after.latency.p90)
        #expect(after.latency.p90 <= after.latency.p99 && after.latency.p99 <= after.latency.max)
        #expect(after.latencyBuckets.map(\.upperBound) == ConnectionRegistry.latencyBucketBounds)
        #expect(after.latencyBuckets.last?.count == after.requests, "every run is under 60 s")
        #expect(ConnectionRegistry.shared.statistics().contains { $0.typeName == "StatisticsProbe" })
    }

    @Test func percentilesOfAKnownDistributionAreWithinTenPercent() {
        var histogram = LatencyHistogram()
        // 1 ms, 2 ms, … 1,000 ms: the true p50 is 500 ms, p90 900 ms, p99 990 ms.
        for millisecond in 1...1000 { histogram.record(Double(millisecond) / 1000) }
        for (fraction, truth) in [(0.5, 0.5), (0.9, 0.9), (0.99, 0.99)] {
            let measured = histogram.percentile(fraction)
            #expect(measured >= truth && measured <= truth * 1.1, "p\(Int(fraction * 100)) = \(measured)")
        }
        #expect(histogram.maximum == 1)
        #expect(histogram.count == 1000)
        #expect(abs(histogram.sum - 500.5) < 1e-6)
        #expect(histogram.boundCounts == [5, 10, 25, 50, 100, 250, 500, 1000, 1000, 1000, 1000, 1000, 1000])
    }

    @Test func historyAndStatisticsStayBoundedUnder100000Endings() async throws {
        let registry = ConnectionRegistry()
        #expect(registry.historyCapacity == 1000, "the default")
        let start = Date(timeIntervalSinceReferenceDate: 0)
        // Seconds of CPU in a debug build: on a thread of its own, not the test's pool thread (see
        // `onOwnThread`).
        let last = await onOwnThread {
            let types: [AnyConnectionRequest.Type] = [
                SyntheticProbeA.self, SyntheticProbeB.self, SyntheticLeafProbe.self,
            ]
            var last: UUID?
            for index in 0..<100_000 {
                let type = types[index % 3]
                let record = Self.synthetic(index: index, typeName: "\(type)", start: start)
                registry.recordSyntheticEnding(record, type: type)
                last = record.identifier
            }
            return last
        }
        let history = registry.history()
        #expect(history.count == 1000)
        #expect(history.last?.identifier == last, "the newest is kept")
        #expect(history.first?.dateStarted == start.addingTimeInterval(99_000), "the oldest kept is run 99,000")
        #expect(registry.recorder.tallyCount == 3, "one tally per class, not per run")
        let a = try #require(registry.statistics(of: SyntheticProbeA.self))
        #expect(a.requests == 33_334)
        #expect(a.failures + a.successes + a.cancellations == a.requests)
        // Durations cycle through 1…100 ms.
        #expect(a.latency.p50 >= 0.049 && a.latency.p50 <= 0.056)
        #expect(abs(a.latency.max - 0.1) < 1e-6)

        registry.historyCapacity = 10
        #expect(registry.history().count == 10)
        #expect(registry.history().last?.identifier == last, "lowering the capacity keeps the newest")
        registry.historyCapacity = 0
        registry.recordSyntheticEnding(
            Self.synthetic(index: 1, typeName: "x", start: start), type: SyntheticProbeA.self)
        #expect(registry.history().isEmpty, "capacity 0 turns the history off")
        #expect(registry.statistics(of: SyntheticProbeA.self)?.requests == 33_335, "statistics still count")
        registry.resetStatistics()
        #expect(registry.statistics().isEmpty)
    }

    static func synthetic(index: Int, typeName: String, start: Date) -> ConnectionHistoryRecord {
        let began = start.addingTimeInterval(Double(index))
        let outcome: ConnectionHistoryRecord.Outcome = index % 10 == 0 ? .failed : .finished
        return ConnectionHistoryRecord(
            identifier: UUID(), typeName: typeName, method: "GET", redactedURL: "https://example.com/\(index)",
            outcome: outcome, statusCode: outcome == .failed ? 500 : 200,
            errorKind: outcome == .failed ? "unacceptableStatusCode" : nil, errorMessage: nil, attempts: 1,
            dateStarted: began, dateFinished: began.addingTimeInterval(Double(index % 100 + 1) / 1000),
            requestHeaderFields: [], responseHeaderFields: [], requestBodySize: 0, responseBodySize: 10,
            metrics: [], responseBodyPreview: nil)
    }
}
