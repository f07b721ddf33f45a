import ConnectionKit
import ConnectionKitTesting
import Foundation
import Testing

@Suite(.offThePool, .exclusive, .timeLimit(.minutes(20))) struct RegistryConcurrencyTests {
    /// 2,000 requests started and cancelled from eight threads at once, while other threads cancel
    /// by class: the registry ends empty and every request ends exactly once, cancelled.
    @Test func twoThousandRequestsStartedAndCancelledFromSeveralThreads() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/hang") { _ in TestResponse(fault: .neverRespond) }
        let url = server.url("/hang")
        let threads = 8
        let perThread = 250
        let requests = (0..<(threads * perThread)).map { _ in StressProbe(url) }
        let endings = EndingRecorder()
        requests.forEach { endings.track($0) }

        // Seconds of work on several threads: not on the test's pool thread (see `onOwnThread`).
        await onOwnThread {
            DispatchQueue.concurrentPerform(iterations: threads + 2) { worker in
                guard worker < threads else {
                    // Two more threads cancel by class while the others start.
                    for _ in 0..<50 { StressProbe.client.registry.cancelAll(StressProbe.self) }
                    return
                }
                for index in 0..<perThread {
                    let request = requests[worker * perThread + index]
                    request.start()
                    if index % 2 == 0 { request.cancel() }
                    if index % 25 == 0 { StressProbe.client.registry.cancelAll(StressProbe.self) }
                }
            }
        }
        StressProbe.client.registry.cancelAll(StressProbe.self)

        guard await endings.ended(within: 120) else { return }
        #expect(StressProbe.client.registry.requests(of: StressProbe.self).isEmpty)
        #expect(!StressProbe.client.registry.isInUse(StressProbe.self))
        let counts = requests.map { endings.count($0) }
        #expect(counts.allSatisfy { $0 == 1 }, "endings per request: \(Set(counts))")
        let notCancelled = requests.filter { ($0.state != .cancelled) }
        #expect(notCancelled.isEmpty)
        let errors = requests.compactMap { endings.error($0) as? ConnectionError }
        #expect(errors.count == requests.count && errors.allSatisfy(\.isCancelled))
    }

    /// Regression: `cancel()` from another thread right as `start()` made the request running used
    /// to unregister it before `start()` registered it, leaving an ended request in the registry
    /// (and the activity indicator on) for ever.
    @Test func cancelRacingStartNeverLeavesARequestRegistered() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/hang") { _ in TestResponse(fault: .neverRespond) }
        let endings = EndingRecorder()
        let requests = (0..<3000).map { _ in RaceProbe(server.url("/hang")) }
        // Seconds of work on several threads: not on the test's pool thread (see `onOwnThread`).
        await onOwnThread {
            for request in requests {
                endings.track(request)
                DispatchQueue.concurrentPerform(iterations: 2) { worker in
                    if worker == 0 {
                        request.start()
                    } else {
                        // Spin (no sleep) until the start is visible, then cancel at once.
                        while request.state == .idle {}
                        request.cancel()
                    }
                }
            }
        }
        guard await endings.ended(within: 60) else { return }
        #expect(RaceProbe.client.registry.requests(of: RaceProbe.self).isEmpty)
        #expect(requests.allSatisfy { endings.count($0) == 1 && $0.state == .cancelled })
    }
}

/// On a client of its own, as ``StressProbe`` is.
final class RaceProbe: Probe, @unchecked Sendable {  // Safe: no state of its own.
    static let client = ConnectionClient.ownForTests(label: "registry-race")
    override var client: ConnectionClient { Self.client }
}
