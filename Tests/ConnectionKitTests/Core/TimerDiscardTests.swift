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
    private let reads = NSLock()
    private var readCount = 0

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
            _ = ended.wait(timeout: .now() + 10)
        }
        return 5
    }
}

@Suite("Timers dropped before they were armed")
struct TimerDiscardTests {
    /// Before the fix, a run that ended between starting its transfer and arming its idle timer released a
    /// DispatchSource that was never resumed, which libdispatch traps on: the process crashed (seen in the
    /// offline queue's crash test, delivering 1,000 writes over loopback).
    @Test("a run that ends before its idle timer is armed ends once and does not crash")
    func runEndsBeforeIdleTimerIsArmed() throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("GET", "/fast") { _ in .text("ok") }
        let request = SlowToArmRequest(target: server.url("/fast"))
        let endings = DispatchSemaphore(value: 0)
        request.callbackQueue = DispatchQueue(label: "TimerDiscardTests")
        request.completionHandler = { _ in
            request.ended.signal()
            endings.signal()
        }
        request.failureHandler = { _ in
            request.ended.signal()
            endings.signal()
        }
        request.start()
        #expect(endings.wait(timeout: .now() + 10) == .success)
        #expect(request.state == .finished)
        #expect(endings.wait(timeout: .now() + 0.2) == .timedOut, "ended twice")
    }
}
