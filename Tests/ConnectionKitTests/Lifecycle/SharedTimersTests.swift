import Dispatch
import Foundation
import Testing

@testable import ConnectionKit

/// The one timer service behind every idle timeout, backoff and deadline. Each test has a service of
/// its own (its own queue and source), so that no request's timers mix with the ones under test.
/// Exclusive (it checks firing times), so its time limit also covers the wait for the other exclusive
/// suites; each wait for a firing records an issue after 10 s by itself.
@Suite("Shared timers", .offThePool, .exclusive, .timeLimit(.minutes(20)))
struct SharedTimersTests {
    /// What the handlers saw: which timer fired (by label), when, and in which order.
    final class Firings: @unchecked Sendable {
        // Safe: `entries` is only touched under `lock`.
        private let lock = NSLock()
        private var entries: [(label: Int, at: UInt64)] = []
        private let signals = DispatchSemaphore(value: 0)

        func record(_ label: Int) {
            let now = DispatchTime.now().uptimeNanoseconds
            lock.lock()
            entries.append((label, now))
            lock.unlock()
            signals.signal()
        }

        var all: [(label: Int, at: UInt64)] {
            lock.lock()
            defer { lock.unlock() }
            return entries
        }

        func labels() -> [Int] { all.map(\.label) }

        func count(of label: Int) -> Int { all.filter { $0.label == label }.count }

        /// Waits for `count` more firings; records an issue when they do not come in `seconds`.
        func wait(for count: Int, seconds: Double = 10, sourceLocation: SourceLocation = #_sourceLocation) async {
            for _ in 0..<count where await !signals.signalled(within: seconds) {
                Issue.record("waited \(seconds) s for a timer to fire", sourceLocation: sourceLocation)
                return
            }
        }
    }

    private static func service() -> SharedTimers {
        SharedTimers(queue: DispatchQueue(label: "SharedTimersTests"))
    }

    private static func deadline(inMilliseconds ms: Int) -> DispatchTime {
        .now() + .milliseconds(ms)
    }

    @Test("a timer fires once, and not before its deadline")
    func firesOnceNeverEarly() async {
        let timers = Self.service()
        let firings = Firings()
        let timer = timers.makeTimer { _ in firings.record(1) }
        let due = Self.deadline(inMilliseconds: 30)
        timer.schedule(deadline: due)
        await firings.wait(for: 1)
        // A later timer firing proves the queue went past the point where a second firing would show.
        let sentinel = timers.makeTimer { _ in firings.record(2) }
        sentinel.schedule(deadline: Self.deadline(inMilliseconds: 20))
        await firings.wait(for: 1)
        #expect(firings.labels() == [1, 2])
        #expect(firings.all.first.map { $0.at >= due.uptimeNanoseconds } == true, "fired early")
        #expect(timers.armedCount == 0)
    }

    @Test("a cancelled timer never fires, and cancelling twice is harmless")
    func cancelPreventsFiring() async {
        let timers = Self.service()
        let firings = Firings()
        let cancelled = timers.makeTimer { _ in firings.record(1) }
        cancelled.schedule(deadline: Self.deadline(inMilliseconds: 20))
        cancelled.cancel()
        cancelled.cancel()
        // Arming after the cancel does nothing either.
        cancelled.schedule(deadline: Self.deadline(inMilliseconds: 20))
        let sentinel = timers.makeTimer { _ in firings.record(2) }
        sentinel.schedule(deadline: Self.deadline(inMilliseconds: 60))
        await firings.wait(for: 1)
        #expect(firings.labels() == [2], "handlers run in deadline order: the cancelled one would come first")
        #expect(timers.armedCount == 0)
    }

    @Test("arming again moves the deadline, earlier or later")
    func rearmMovesTheDeadline() async {
        let timers = Self.service()
        let firings = Firings()
        let earlier = timers.makeTimer { _ in firings.record(1) }
        earlier.schedule(deadline: Self.deadline(inMilliseconds: 60_000))
        let movedTo = Self.deadline(inMilliseconds: 20)
        earlier.schedule(deadline: movedTo)
        await firings.wait(for: 1)
        #expect(firings.all.first.map { $0.at >= movedTo.uptimeNanoseconds } == true, "fired early")

        let later = timers.makeTimer { _ in firings.record(2) }
        later.schedule(deadline: Self.deadline(inMilliseconds: 10))
        let pushedTo = Self.deadline(inMilliseconds: 200)
        later.schedule(deadline: pushedTo)
        let sentinel = timers.makeTimer { _ in firings.record(3) }
        sentinel.schedule(deadline: Self.deadline(inMilliseconds: 50))
        await firings.wait(for: 2)
        #expect(firings.labels() == [1, 3, 2], "the pushed timer fired at its first deadline")
        #expect(firings.all.last.map { $0.at >= pushedTo.uptimeNanoseconds } == true, "fired early")
        #expect(timers.armedCount == 0)
    }

    @Test("a handler can arm its own timer again, as the idle timeout does")
    func handlerRearms() async {
        let timers = Self.service()
        let firings = Firings()
        let rounds = Locked(0)
        let timer = timers.makeTimer { timer in
            firings.record(1)
            let round = rounds.withLock { rounds -> Int in
                rounds += 1
                return rounds
            }
            if round < 3 { timer.schedule(deadline: .now() + .milliseconds(10)) }
        }
        timer.schedule(deadline: Self.deadline(inMilliseconds: 10))
        await firings.wait(for: 3)
        #expect(firings.labels() == [1, 1, 1])
        #expect(timers.armedCount == 0)
    }

    @Test("thousands of timers fire in deadline order, each once and never early; cancelled ones never")
    func thousandsInOrder() async {
        // Held while the timers are armed: under ThreadSanitizer arming 5,000 takes longer than the first
        // deadline, and a timer armed after others fired could not have fired in deadline order.
        let queue = DispatchQueue(label: "SharedTimersTests.thousands")
        let timers = SharedTimers(queue: queue)
        queue.suspend()
        let firings = Firings()
        let count = 5_000
        let base = DispatchTime.now().uptimeNanoseconds + 100_000_000
        var generator = SystemRandomNumberGenerator()
        // Deadlines spread over 200 ms, with ties (whole milliseconds) to check the arming order.
        let deadlines = (0..<count).map { _ in base + UInt64.random(in: 0..<200, using: &generator) * 1_000_000 }
        let armed = deadlines.enumerated().map { label, deadline in
            let timer = timers.makeTimer { _ in firings.record(label) }
            timer.schedule(deadline: DispatchTime(uptimeNanoseconds: deadline))
            return timer
        }
        let cancelled = Set(stride(from: 0, to: count, by: 3))
        cancelled.forEach { armed[$0].cancel() }
        queue.resume()
        let kept = (0..<count).filter { !cancelled.contains($0) }
        await firings.wait(for: kept.count)

        let expected = kept.sorted { (deadlines[$0], $0) < (deadlines[$1], $1) }
        #expect(firings.labels() == expected)
        let early = firings.all.filter { $0.at < deadlines[$0.label] }
        #expect(early.isEmpty, "\(early.count) fired early")
        #expect(timers.armedCount == 0)
    }

    @Test("arming a deadline later than the earliest armed one makes no system call")
    func laterDeadlinesDoNotResetTheSource() {
        let timers = Self.service()
        let first = timers.makeTimer { _ in }
        first.schedule(deadline: Self.deadline(inMilliseconds: 60_000))
        let settings = timers.sourceSettingCount
        let later = (1...1_000).map { offset in
            let timer = timers.makeTimer { _ in }
            timer.schedule(deadline: Self.deadline(inMilliseconds: 60_000 + offset))
            return timer
        }
        later.forEach { $0.cancel() }
        #expect(timers.sourceSettingCount == settings)
        let sooner = timers.makeTimer { _ in }
        sooner.schedule(deadline: Self.deadline(inMilliseconds: 30_000))
        #expect(timers.sourceSettingCount == settings + 1, "an earlier deadline sets the source")
        first.cancel()
        sooner.cancel()
        #expect(timers.armedCount == 0)
    }
}
