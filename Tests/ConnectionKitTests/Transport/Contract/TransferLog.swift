import Foundation
import Testing

@testable import ConnectionKit

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Starts `request` on `transport` with `log` as its receiver, marking the caller's thread for as long
/// as `startTransfer` runs (contract point 1) and storing the handle in `log`. The one call of the
/// transport seam in the contract and wire tests: a change of the seam changes this function only.
@discardableResult
func startLogged(
    _ request: URLRequest, on transport: any Transport, bodyFile: URL? = nil,
    streamedBody: StreamedBodyReader? = nil, log: TransferLog
) -> any TransferHandle {
    log.willStart()
    let handle: any TransferHandle
    do {
        let options = TransferOptions(bodyFile: bodyFile, streamedBody: streamedBody)
        handle = try transport.startTransfer(request, options: options, receiver: log)
    } catch {
        Issue.record("the transport refused the transfer: \(error)")
        handle = RefusedTransfer.start(log)
    }
    log.didStart(handle)
    return handle
}

/// A receiver that records every event of one transfer with what the contract says about it: whether
/// it overlapped another event, ran on the caller's thread inside `startTransfer`, came after the
/// completion or started after a `cancel()` had returned.
final class TransferLog: TransferReceiver, @unchecked Sendable {
    // Safe: every mutable property lives in `state`, behind its lock; `onEvent` is set before the start.
    enum Event: Sendable, Equatable {
        case response(status: Int)
        case data(count: Int)
        case sent(total: Int64, expected: Int64)
        case metrics
        case complete(hasResponse: Bool, failed: Bool)

        var status: Int? {
            if case .response(let status) = self { return status }
            return nil
        }
        var isData: Bool {
            if case .data = self { return true }
            return false
        }
        var isSent: Bool {
            if case .sent = self { return true }
            return false
        }
        var isCompletion: Bool {
            if case .complete = self { return true }
            return false
        }
    }

    struct State {
        var events: [Event] = []
        var body = Data()
        var response: TransportResponse?
        var completionResponse: TransportResponse?
        var error: (any Error)?
        var metrics: [TransferMetrics] = []
        var running = 0
        var overlaps = 0
        var startingThread: pthread_t?
        var onCallerInsideStart = 0
        var startReturned = false
        var completedBeforeStartReturned = false
        var completions = 0
        var eventsAfterCompletion = 0
        var cancelReturned = false
        var eventsStartedAfterCancel = 0
        var handle: (any TransferHandle)?
    }

    let state = Locked(State())
    /// Left when `startTransfer` returned and the handle is stored.
    private let stored = DispatchGroup()
    /// Called at the end of every event, on the transport's thread (a test cancels from here).
    let onEvent: @Sendable (TransferLog, Event) -> Void
    /// The answer to each piece of the body (default: always more).
    let demand: @Sendable (TransferLog, Event) -> TransferDemand
    private let ended = Locked<[@Sendable () -> Void]>([])

    init(
        onEvent: @escaping @Sendable (TransferLog, Event) -> Void = { _, _ in },
        demand: @escaping @Sendable (TransferLog, Event) -> TransferDemand = { _, _ in .more }
    ) {
        self.onEvent = onEvent
        self.demand = demand
        stored.enter()
    }

    var events: [Event] { state.withLock { $0.events } }
    /// The statuses of the responses delivered, in order.
    var statuses: [Int] { events.compactMap(\.status) }
    var body: Data { state.withLock { $0.body } }
    var completions: Int { state.withLock { $0.completions } }
    var error: (any Error)? { state.withLock { $0.error } }
    var handle: (any TransferHandle)? { state.withLock { $0.handle } }

    func willStart() { state.withLock { $0.startingThread = pthread_self() } }

    func didStart(_ handle: any TransferHandle) {
        state.withLock { state in
            state.handle = handle
            state.startReturned = true
        }
        stored.leave()
    }

    /// The handle, once `startTransfer` returned it (at most 10 s): an event may come before (point 2).
    func storedHandle() -> (any TransferHandle)? {
        _ = stored.wait(timeout: .now() + 10)
        return handle
    }

    /// Cancels the transfer and notes when `cancel()` returned: an event that starts later breaks point 5.
    /// Returns how long `cancel()` took.
    @discardableResult
    func cancel() -> TimeInterval {
        let handle = storedHandle()
        let start = Date()
        handle?.cancel()
        let took = Date().timeIntervalSince(start)
        state.withLock { $0.cancelReturned = true }
        return took
    }

    // MARK: - TransferReceiver

    func transferDidReceive(response: TransportResponse) {
        record(.response(status: response.statusCode)) { $0.response = response }
    }

    func transferDidReceive(data: Data) -> TransferDemand {
        let event = Event.data(count: data.count)
        record(event) { $0.body.append(data) }
        return demand(self, event)
    }

    func transferDidSend(totalBytes: Int64, expectedBytes: Int64) {
        record(.sent(total: totalBytes, expected: expectedBytes)) { _ in }
    }

    func transferDidCollect(metrics: TransferMetrics) {
        record(.metrics) { $0.metrics.append(metrics) }
    }

    func transferDidComplete(response: TransportResponse?, error: (any Error)?) {
        record(.complete(hasResponse: response != nil, failed: error != nil)) { state in
            state.completionResponse = response
            state.error = error
            state.completions += 1
            state.completedBeforeStartReturned = !state.startReturned
        }
        ended.withLock { $0 }.forEach { $0() }
    }

    private func record(_ event: Event, _ update: (inout State) -> Void) {
        let me = pthread_self()
        state.withLock { state in
            state.running += 1
            if state.running > 1 { state.overlaps += 1 }
            if !state.startReturned, let starter = state.startingThread, pthread_equal(starter, me) != 0 {
                state.onCallerInsideStart += 1
            }
            if state.completions > 0 { state.eventsAfterCompletion += 1 }
            if state.cancelReturned { state.eventsStartedAfterCancel += 1 }
            state.events.append(event)
            update(&state)
        }
        onEvent(self, event)
        state.withLock { $0.running -= 1 }
    }

    // MARK: - Waiting

    /// Waits for the completion; records an issue and returns false after `timeout`.
    @discardableResult
    func waitForCompletion(timeout: TimeInterval = 60, sourceLocation: SourceLocation = #_sourceLocation) async
        -> Bool
    {
        let done = await waitForSignal(timeout: timeout) { signal in
            ended.withLock { $0.append(signal) }
            if completions > 0 { signal() }
        }
        if !done { Issue.record("the transfer did not complete within \(timeout) s", sourceLocation: sourceLocation) }
        return done
    }

    /// Waits until the body stops growing for `quiet` seconds (at most `timeout`); returns its size then.
    func bodySizeOnceQuiet(quiet: TimeInterval = 0.5, timeout: TimeInterval = 20) async -> Int {
        let deadline = Date().addingTimeInterval(timeout)
        var last = body.count
        var since = Date()
        while Date() < deadline {
            try? await Task.sleep(nanoseconds: 50_000_000)
            let now = body.count
            if now != last {
                (last, since) = (now, Date())
            } else if Date().timeIntervalSince(since) >= quiet {
                break
            }
        }
        return last
    }

    /// A response field's value, its name matched without regard to case.
    func field(_ name: String) -> String? {
        let fields = state.withLock { $0.response?.head.fields } ?? [:]
        return fields.first { $0.key.lowercased() == name.lowercased() }?.value
    }
}
