import ConnectionKit
import ConnectionKitTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Holds up the arming of its idle timer (the second read of `timeoutInterval` in an attempt, after the
/// transfer started) until the run has ended: the order a fast loopback answer can produce by itself.
final class SlowToArmRequest: ConnectionRequest<Data>, @unchecked Sendable {
    // Safe: `reads` is behind its lock; the rest is immutable.
    let target: URL
    let ended = DispatchSemaphore(value: 0)
    /// Signalled when the arming read is being held: the server answers only then, so that the answer
    /// cannot end the run before the arming (libcurl can otherwise finish the whole transfer first).
    let armingHeld = DispatchSemaphore(value: 0)
    /// The idle timeout: short, so that the test can wait out a timer that was dropped but still fires.
    static let idleTimeout: TimeInterval = 1
    private let reads = NSLock()
    private var readCount = 0
    private var heldAfterTransferBegan: Bool?

    init(target: URL) {
        self.target = target
        super.init()
    }

    override var url: URL? { target }

    override var timeoutInterval: TimeInterval {
        reads.lock()
        readCount += 1
        let count = readCount
        reads.unlock()
        if count == 2 {
            let began = transferBegan(self)
            reads.withLock { heldAfterTransferBegan = began }
            armingHeld.signal()
            _ = ended.wait(timeout: .now() + 10)
        }
        return Self.idleTimeout
    }

    /// Whether the held read came after the transfer began, i.e. from the arming of the idle timer
    /// (`nil` when no second read happened): the test is only about that race if it did.
    var heldTheArming: Bool? { reads.withLock { heldAfterTransferBegan } }
}

@Suite("Timers dropped before they were armed", .offThePool, .exclusive, .timeLimit(.minutes(20)))
struct TimerDiscardTests {
    /// Before the fix, a run that ended between starting its transfer and arming its idle timer released a
    /// DispatchSource that was never resumed, which libdispatch traps on: the process crashed (seen in the
    /// offline queue's crash test, delivering 1,000 writes over loopback).
    @Test("a run that ends before its idle timer is armed ends once and does not crash")
    func runEndsBeforeIdleTimerIsArmed() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        let request = SlowToArmRequest(target: server.url("/fast"))
        server.route("GET", "/fast") { _ in
            // On the server's connection thread: answers once the arming is held (or after 10 s, when the
            // last expectation then says the race was not produced).
            _ = request.armingHeld.wait(timeout: .now() + 10)
            return .text("ok")
        }
        // Watches for a second ending past the idle timer that was dropped.
        let endings = EndingRecorder(settle: SlowToArmRequest.idleTimeout + 0.3)
        endings.track(
            request, queue: DispatchQueue(label: "TimerDiscardTests"), onFirstEnding: { request.ended.signal() })
        request.start()
        #expect(await endings.ended(within: 10))
        #expect(request.state == .finished)
        #expect(endings.count(request) == 1, "ended twice")
        #expect(request.heldTheArming == true, "the run ended while the arming of its idle timer was held")
    }
}
