import Foundation

@testable import ConnectionKit

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A transport that plays a script instead of moving bytes: the fake of the transport contract
/// (`Transport/Transport.swift`). It lets a test put a request through what real transports do only
/// rarely, or only when they misbehave: every event before `startTransfer` returns, a completion with no
/// response, metrics after the completion, a transfer that holds until cancelled.
///
/// It keeps the contract's cancel rule (point 5) whatever the script says: once ``ScriptedTransfer``'s
/// `cancel()` returned, no step is delivered; everything else is delivered exactly as scripted, in order,
/// serially, on a thread of the transfer's own.
final class ScriptedTransport: Sendable {
    /// One step of a transfer's script.
    enum Step: Sendable {
        /// The response head (the `TransportResponse` is built from these fields and the request's URL).
        case response(status: Int, fields: [String: String] = [:])
        case data(Data)
        case sent(totalBytes: Int64, expectedBytes: Int64)
        case metrics(TransferMetrics)
        /// The completion, with the response delivered so far (if any).
        case complete(error: (any Error & Sendable)? = nil)
        /// The completion with no response, whatever was delivered.
        case completeWithoutResponse(error: (any Error & Sendable)?)
        /// `startTransfer` returns here: the steps before it are delivered while the caller still waits.
        /// Without this step, `startTransfer` returns before the first step is delivered.
        case returnFromStart
        /// Waits until the transfer is cancelled (at most 60 s): a transfer still running.
        case holdUntilCancelled
        /// Metrics delivered even after a cancel: a transport that breaks points 4, 5 and 7 (the request
        /// cancels its transfer when it completes, so only this step reaches it after the completion).
        case lateMetrics(TransferMetrics)
    }

    /// The script of each transfer in turn; the last one plays for every transfer after it.
    let scripts: [[Step]]
    /// Whether its transfers follow the receiver's demand (`followsDemand`: a `.wait` answer holds the
    /// next `.data` step until `demandMore()`).
    let canPause: Bool
    private let startedRequests = Locked<[URLRequest]>([])
    private let handles = Locked<[ScriptedTransfer]>([])

    /// Every transfer plays `script`.
    convenience init(_ script: [Step], canPause: Bool = true) {
        self.init(scripts: [script], canPause: canPause)
    }

    /// The first transfer plays `scripts[0]`, the second `scripts[1]`, and so on; the last script plays
    /// for every transfer after it.
    init(scripts: [[Step]], canPause: Bool = true) {
        precondition(!scripts.isEmpty, "a scripted transport needs a script")
        self.scripts = scripts
        self.canPause = canPause
    }

    /// The requests handed to `startTransfer`, in order.
    var requests: [URLRequest] { startedRequests.withLock { $0 } }

    /// The transfers started, in order.
    var transfers: [ScriptedTransfer] { handles.withLock { $0 } }

    /// Starts playing the script for `request` to `receiver`; returns when the script reaches
    /// `.returnFromStart`, or at once when it has none.
    func begin(_ request: URLRequest, receiver: any TransferReceiver) -> ScriptedTransfer {
        let index = startedRequests.withLock { requests in
            requests.append(request)
            return requests.count - 1
        }
        let transfer = ScriptedTransfer(
            script: scripts[min(index, scripts.count - 1)], url: request.url ?? URL(string: "http://127.0.0.1/")!,
            receiver: receiver,
            canPause: canPause)
        handles.withLock { $0.append(transfer) }
        transfer.play()
        return transfer
    }
}

/// One transfer of a ``ScriptedTransport``: plays its script on a thread of its own.
final class ScriptedTransfer: @unchecked Sendable {
    // Safe: the mutable state lives in `state`, behind `condition`; the rest is immutable.
    private struct State {
        var receiver: (any TransferReceiver)?
        var cancelled = false
        var pauseRequested = false
        var cancelCalls = 0
        var deliveredSteps = 0
    }

    private let script: [ScriptedTransport.Step]
    private let url: URL
    private let canPause: Bool
    private let condition = NSCondition()
    private var state: State
    private let returned = DispatchSemaphore(value: 0)

    init(script: [ScriptedTransport.Step], url: URL, receiver: any TransferReceiver, canPause: Bool) {
        self.script = script
        self.url = url
        self.canPause = canPause
        self.state = State(receiver: receiver)
    }

    /// How many times `cancel()` was called.
    var cancelCalls: Int { locked { $0.cancelCalls } }

    /// How many events were delivered.
    var deliveredSteps: Int { locked { $0.deliveredSteps } }

    private func locked<Result>(_ body: (inout State) -> Result) -> Result {
        condition.lock()
        defer { condition.unlock() }
        return body(&state)
    }

    func play() {
        let waits = script.contains { if case .returnFromStart = $0 { true } else { false } }
        let thread = Thread { [self] in run() }
        thread.name = "ScriptedTransport"
        thread.start()
        if waits { _ = returned.wait(timeout: .now() + 60) }
    }

    private func run() {
        var response: TransportResponse?
        let original = locked { $0.receiver }
        defer { returned.signal() }
        for step in script {
            switch step {
            case .returnFromStart:
                returned.signal()
                continue
            case .lateMetrics(let metrics):
                locked { $0.deliveredSteps += 1 }
                original?.transferDidCollect(metrics: metrics)
                continue
            case .holdUntilCancelled:
                waitWhile(timeout: 60) { !$0.cancelled }
                continue
            case .data:
                waitWhile(timeout: 60) { $0.pauseRequested && !$0.cancelled }
            default:
                break
            }
            // The cancel rule: checked as the step starts (a cancel from another thread may still see
            // the one step already past this check, as the contract allows).
            let receiver = locked { state -> (any TransferReceiver)? in
                guard !state.cancelled, let receiver = state.receiver else { return nil }
                state.deliveredSteps += 1
                return receiver
            }
            guard let receiver else { return }
            switch step {
            case .response(let status, let fields):
                let made = TransportResponse(
                    url: url, statusCode: status, httpVersion: "HTTP/1.1", head: ResponseHead(fields: fields))
                response = made
                receiver.transferDidReceive(response: made)
            case .data(let data):
                // A `.wait` answer holds the next `.data` step until `demandMore()` (when it follows demand).
                if receiver.transferDidReceive(data: data) == .wait { _ = setPaused(true) }
            case .sent(let total, let expected): receiver.transferDidSend(totalBytes: total, expectedBytes: expected)
            case .metrics(let metrics): receiver.transferDidCollect(metrics: metrics)
            case .complete(let error): receiver.transferDidComplete(response: response, error: error)
            case .completeWithoutResponse(let error): receiver.transferDidComplete(response: nil, error: error)
            case .returnFromStart, .holdUntilCancelled, .lateMetrics: break
            }
        }
        locked { $0.receiver = nil }
    }

    private func waitWhile(timeout: TimeInterval, _ condition: (State) -> Bool) {
        let deadline = Date().addingTimeInterval(timeout)
        self.condition.lock()
        defer { self.condition.unlock() }
        while condition(state), self.condition.wait(until: deadline) {}
    }

    fileprivate func cancelTransfer() {
        locked { state in
            state.cancelCalls += 1
            state.cancelled = true
            state.receiver = nil
        }
        condition.broadcast()
    }

    fileprivate var canPauseTransfer: Bool { canPause }

    fileprivate func setPaused(_ paused: Bool) -> Bool {
        guard canPause else { return false }
        locked { $0.pauseRequested = paused }
        condition.broadcast()
        return true
    }
}

// The conformances, in one place: the transport seam (`prepareTransfer` with its options, then `start`;
// flow control by the receiver's demand). A change of the seam changes these lines only.

extension ScriptedTransport: Transport {
    func prepareTransfer(_ request: URLRequest, options: TransferOptions) throws(ConnectionError)
        -> any PreparedTransfer
    {
        ScriptedPreparedTransfer(transport: self, request: request)
    }
}

/// A scripted transfer prepared and not yet started.
struct ScriptedPreparedTransfer: PreparedTransfer {
    let transport: ScriptedTransport
    let request: URLRequest

    func start(receiver: any TransferReceiver) -> any TransferHandle {
        transport.begin(request, receiver: receiver)
    }
}

extension ScriptedTransfer: TransferHandle {
    func cancel() { cancelTransfer() }
    var followsDemand: Bool { canPauseTransfer }
    func demandMore() { _ = setPaused(false) }
}
