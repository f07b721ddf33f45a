import ConnectionKit
import ConnectionKitTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Signals when it has decided to retry, so that the test can cancel during the wait.
final class BackoffCancelled: RetryingRequest, @unchecked Sendable {
    let decided = DispatchSemaphore(value: 0)
    override func retryDecision(for error: ConnectionError, attempt: Int, response: ConnectionResponse?)
        -> RetryDecision
    {
        defer { decided.signal() }
        return super.retryDecision(for: error, attempt: attempt, response: response)
    }
}

/// Cancels itself from inside its own retry decision: the backoff timer is created and then dropped.
final class CancelsInDecision: RetryingRequest, @unchecked Sendable {
    override func retryDecision(for error: ConnectionError, attempt: Int, response: ConnectionResponse?)
        -> RetryDecision
    {
        cancel()
        return .retry(after: 0.01)
    }
}

/// Cancels itself while the idle timer of its first attempt is being armed.
final class CancelsWhileArming: RetryingRequest, @unchecked Sendable {
    private let reads = Counter()
    /// Holds the server's answer until the cancel: the transfer cannot end before the timer is armed, however
    /// slow the machine.
    let answer = OpenableGate(timeout: 10)
    /// Whether the cancelling read came after the transfer began, i.e. from the arming of the idle timer
    /// (`nil` until that read): the test is only about that race if it did.
    let cancelledAfterTransferBegan = Locked<Bool?>(nil)

    override var timeoutInterval: TimeInterval {
        // Read once to build the request, then when the idle timer is armed.
        if reads.next() == 2 {
            let began = transferBegan(self)
            cancelledAfterTransferBegan.withLock { $0 = began }
            cancel()
            answer.open()
        }
        return 5
    }
}

/// Whether `request`'s current transfer was handed to URLSession: its registry snapshot shows the URL sent
/// (set as the transfer begins, cleared by every start).
func transferBegan(_ request: AnyConnectionRequest) -> Bool {
    let identifier = request.identifier
    return ConnectionRegistry.shared.snapshot().first { $0.identifier == identifier }?.redactedURL != nil
}

/// Cancels itself while its deadline timer is being armed.
final class CancelsWhileArmingDeadline: RetryingRequest, @unchecked Sendable {
    override var retryPolicy: RetryPolicy {
        cancel()
        return testPolicy(attempts: 2, deadline: 5)
    }
}

/// Cancelling during the backoff wait, and cancels that race the arming of timers.
@Suite(.offThePool, .exclusive, .timeLimit(.minutes(20))) struct RetryCancelTests {
    @Test func cancelDuringTheBackoffWaitEndsAtOnceAndSendsNothingMore() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        let secondAttempt = DispatchSemaphore(value: 0)
        let counter = Counter()
        server.route("/busy") { _ in
            if counter.next() > 1 { secondAttempt.signal() }
            return .status(503)
        }
        let request = BackoffCancelled(server.url("/busy"), policy: testPolicy(attempts: 3, backoff: 0.6))
        let recorder = EndingRecorder(settle: settleWindow(for: request))
        recorder.track(request, queue: DispatchQueue(label: "RetryCancelTests"))
        request.start()
        #expect(await request.decided.signalled(within: 10), "the first attempt failed")
        let cancelledAt = Date()
        request.cancel()
        await recorder.ended(within: 15)
        let ending = recorder.ending(of: request)
        #expect(ending?.error?.isCancelled == true)
        let endedAt = try #require(recorder.dates(request).first)
        #expect(endedAt.timeIntervalSince(cancelledAt) < 0.5, "no wait for the backoff")
        #expect(!ConnectionRegistry.shared.isInUse(BackoffCancelled.self))
        // The backoff (0.6 s) passes: no second attempt may arrive.
        #expect(await !secondAttempt.signalled(within: 1.0))
        #expect(server.hits("/busy") == 1)
        #expect(request.attempt == 1)
        #expect(recorder.count(request) == 1)
    }

    @Test func cancelFromTheRetryDecisionDoesNotTrap() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/busy") { _ in .status(503) }
        let ending = await run(CancelsInDecision(server.url("/busy"), policy: testPolicy(attempts: 3)))
        #expect(ending?.error?.isCancelled == true)
        #expect(server.hits("/busy") == 1)
    }

    @Test func cancelWhileTheIdleTimerIsArmedDoesNotTrap() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        let request = CancelsWhileArming(server.url("/ok"))
        defer { request.answer.open() }
        server.route("/ok") { _ in
            request.answer.pass()
            return .text("ok")
        }
        let ending = await run(request)
        #expect(ending?.error?.isCancelled == true)
        #expect(request.cancelledAfterTransferBegan.withLock { $0 } == true, "the cancel came from the arming")
    }

    @Test func cancelWhileTheDeadlineIsArmedDoesNotTrap() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/ok") { _ in .text("ok") }
        let request = CancelsWhileArmingDeadline(server.url("/ok"))
        let ending = await run(request)
        #expect(ending?.error?.isCancelled == true)
        #expect(!ConnectionRegistry.shared.isInUse(CancelsWhileArmingDeadline.self))
    }
}
