import ConnectionKitTesting
import Foundation
import Testing

@testable import ConnectionKit

/// Records an activity signal's notifications and lets a test wait for the next ones.
private final class ActivityRecorder: @unchecked Sendable {
    // Safe: `values` and `times` are only touched while `lock` is held.
    private let lock = NSLock()
    private var values: [Bool] = []
    private var times: [Date] = []
    private let arrived = DispatchSemaphore(value: 0)

    func record(_ value: Bool) {
        lock.withLock {
            values.append(value)
            times.append(Date())
        }
        arrived.signal()
    }

    /// Waits for `count` more notifications.
    func waitFor(_ count: Int, sourceLocation: SourceLocation = #_sourceLocation) async -> Bool {
        for _ in 0..<count {
            guard await arrived.signalled(within: 10) else {
                Issue.record("no activity notification within 10 s", sourceLocation: sourceLocation)
                return false
            }
        }
        return true
    }

    var all: [Bool] { lock.withLock { values } }
    var lastTime: Date? { lock.withLock { times.last } }
}

@Suite(.offThePool, .exclusive, .timeLimit(.minutes(20))) struct RegistryActivityTests {
    @Test func onAtOnceOffAfterTheHideDelay() async {
        let activity = NetworkActivity(hideDelay: 0.2)
        let recorder = ActivityRecorder()
        let observation = activity.observe(on: DispatchQueue(label: "activity-test")) { recorder.record($0) }
        defer { observation.cancel() }
        guard await recorder.waitFor(1) else { return }
        #expect(recorder.all == [false], "the current value first")

        activity.requestCountChanged(by: 1)
        #expect(activity.isActive, "on at once, synchronously")
        guard await recorder.waitFor(1) else { return }
        #expect(recorder.all == [false, true])

        let ended = Date()
        activity.requestCountChanged(by: -1)
        #expect(activity.isActive, "still on right after the last request ended")
        #expect(activity.liveRequestCount == 0)
        guard await recorder.waitFor(1) else { return }
        #expect(recorder.all == [false, true, false])
        #expect(!activity.isActive)
        #expect(recorder.lastTime.map { $0.timeIntervalSince(ended) >= 0.19 } == true, "off only after hideDelay")
    }

    @Test func backToBackRequestsDoNotFlicker() async {
        let activity = NetworkActivity(hideDelay: 0.2)
        let recorder = ActivityRecorder()
        let observation = activity.observe(on: DispatchQueue(label: "activity-test")) { recorder.record($0) }
        defer { observation.cancel() }
        guard await recorder.waitFor(1) else { return }
        for _ in 0..<20 {
            activity.requestCountChanged(by: 1)
            activity.requestCountChanged(by: -1)
        }
        activity.requestCountChanged(by: 1)
        activity.requestCountChanged(by: 1)
        activity.requestCountChanged(by: -1)
        let ended = Date()
        activity.requestCountChanged(by: -1)
        // A flicker would show as a `false` (and another `true`) before the final `false`.
        guard await recorder.waitFor(2) else { return }
        #expect(recorder.all == [false, true, false])
        #expect(recorder.lastTime.map { $0.timeIntervalSince(ended) >= 0.19 } == true)
    }

    /// One hide check is armed per idle spell, not per request: when a request comes and goes while it is
    /// pending, the signal stays on until `hideDelay` after that later request ended.
    @Test func theHideCountsFromTheLastRequestNotTheFirst() async {
        let activity = NetworkActivity(hideDelay: 0.3)
        let recorder = ActivityRecorder()
        let observation = activity.observe(on: DispatchQueue(label: "activity-test")) { recorder.record($0) }
        defer { observation.cancel() }
        guard await recorder.waitFor(1) else { return }
        activity.requestCountChanged(by: 1)
        activity.requestCountChanged(by: -1)
        guard await recorder.waitFor(1) else { return }
        // The gap is the behaviour under test (a second request half-way through the first one's delay),
        // not a wait for another thread.
        try? await Task.sleep(nanoseconds: 150_000_000)
        activity.requestCountChanged(by: 1)
        activity.requestCountChanged(by: -1)
        let lastEnded = Date()
        guard await recorder.waitFor(1) else { return }
        #expect(recorder.all == [false, true, false])
        #expect(
            recorder.lastTime.map { $0.timeIntervalSince(lastEnded) >= 0.29 } == true,
            "off \(recorder.lastTime.map { $0.timeIntervalSince(lastEnded) } ?? -1) s after the last request ended")
    }

    /// Other tests raise the shared signal too, but they only ever add to its count: with this test's many
    /// requests live, a count below their number shows the registry did not feed the signal. (The exclusive
    /// tests that start this many requests never overlap this one.)
    @Test func theSharedSignalIsOnWhileARequestIsLive() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/hang") { _ in TestResponse(fault: .neverRespond) }
        let live = 100
        let requests = (0..<live).map { _ in ActivityProbe(server.url("/hang")) }
        let endings = EndingRecorder()
        requests.forEach { endings.track($0) }
        requests.forEach { $0.start() }
        #expect(ConnectionRegistry.shared.requests(of: ActivityProbe.self).count == live)
        let during = NetworkActivity.shared.liveRequestCount
        #expect(during >= live, "\(during) live requests counted while this test alone had \(live) running")
        #expect(NetworkActivity.shared.isActive)
        #expect(NetworkActivity.hideDelay == 0.25)
        requests.forEach { $0.cancel() }
        guard await endings.ended() else { return }
        #expect(ConnectionRegistry.shared.requests(of: ActivityProbe.self).isEmpty)
    }

    @Test func changesStreamStartsWithTheCurrentValue() async {
        let activity = NetworkActivity(hideDelay: 0.05)
        var iterator = activity.changes.makeAsyncIterator()
        #expect(await iterator.next() == false)
        activity.requestCountChanged(by: 1)
        #expect(await iterator.next() == true)
        activity.requestCountChanged(by: -1)
        #expect(await iterator.next() == false)
    }
}
