import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Receives the events of one transfer (one attempt, or one redirect hop) for its request.
final class TransferContext: TransferReceiver, @unchecked Sendable {
    // Safe: every stored property is immutable; the sink lives behind `slot`'s lock.
    let request: AnyConnectionRequest
    let transfer: TransferNumber
    private let fileTarget: FileTarget?
    private let slot = Locked(SinkSlot())
    private let progressInterval: TimeInterval
    /// The run's client's processing queue, where the completion goes.
    private let processingQueue: DispatchQueue

    /// The body's sink, and whether the transfer was abandoned (a sink that arrives later is
    /// discarded at once, so that no temporary file outlives a cancel).
    private struct SinkSlot {
        var sink: (any BodySink)?
        var abandoned = false
    }

    init(request: AnyConnectionRequest, transfer: TransferNumber, fileTarget: FileTarget?) {
        self.request = request
        self.transfer = transfer
        self.fileTarget = fileTarget
        self.progressInterval = request.progressInterval
        self.processingQueue = request.runClient.processingQueue
    }

    func transferDidCollect(metrics: TransferMetrics) {
        request.transferDidCollect(metrics: metrics, transfer: transfer)
    }

    func transferDidReceive(response: TransportResponse) {
        let choice = request.transferDidReceive(response: response, transfer: transfer, fileTarget: fileTarget)
        do {
            let newSink: any BodySink
            switch choice {
            case .ignore:
                return
            case .discard:
                newSink = DiscardSink()
            case .memory(let limit, let expected):
                newSink = MemorySink(limit: limit, expectedLength: expected)
            case .stream(let sink):
                newSink = sink
            case .file(let target, let offset, let validator):
                newSink = try FileSink(target: target, appendingAt: offset, validator: validator)
            }
            let (previous, abandoned) = slot.withLock { slot in
                defer { if !slot.abandoned { slot.sink = newSink } }
                return (slot.sink, slot.abandoned)
            }
            previous?.discard()
            if abandoned { newSink.discard() }
        } catch {
            fail(request.contextualize(error, as: { .fileSystem(underlying: $0) }), response: response)
        }
    }

    func transferDidReceive(data: Data) -> TransferDemand {
        received(count: data.count) { try $0.append(data) }
    }

    func transferDidReceive(bytes: UnsafeRawBufferPointer) -> TransferDemand {
        received(count: bytes.count) { try $0.append(bytes: bytes) }
    }

    /// Hands a piece of the body to the sink with `append`, and counts it.
    private func received(count: Int, _ append: (any BodySink) throws -> TransferDemand) -> TransferDemand {
        let demand: TransferDemand
        do {
            demand = try slot.withLock { slot in try slot.sink.map(append) } ?? .more
        } catch {
            fail(request.contextualize(error, as: { .fileSystem(underlying: $0) }), response: nil)
            // Abandoned: a transport that follows demand reads nothing more until the cancel arrives, which
            // is only once `startTransfer` returned the handle when this event came before that.
            return .wait
        }
        request.transferDidProgress(
            .download, bytes: Int64(count), total: nil, transfer: transfer, interval: progressInterval)
        return demand
    }

    func transferDidSend(totalBytes: Int64, expectedBytes: Int64) {
        request.transferDidProgress(
            .upload, bytes: nil, total: (totalBytes, expectedBytes), transfer: transfer, interval: progressInterval)
    }

    func transferDidComplete(response: TransportResponse?, error: (any Error)?) {
        let body = slot.withLock { slot in
            defer { slot.sink = nil }
            return slot.sink
        }
        let (transfer, request) = (self.transfer, self.request)
        let finishedBody = SendableBox(body)
        request.process(run: transfer.run, on: processingQueue) {
            request.transferDidComplete(transfer, response: response, error: error, sink: finishedBody.value)
        }
    }

    /// Marks the transfer abandoned when it holds no body (it completed, and its body went to the
    /// request): then there is nothing slow to drop. Returns `false`, changing nothing, when a body is
    /// still held; ``abandon()`` drops it.
    func abandonIfEmpty() -> Bool {
        slot.withLock { slot in
            guard slot.sink == nil else { return false }
            slot.abandoned = true
            return true
        }
    }

    /// Throws away the body received so far; the transfer is over.
    func abandon() {
        let body = slot.withLock { slot in
            defer { (slot.sink, slot.abandoned) = (nil, true) }
            return slot.sink
        }
        body?.discard()
    }

    private func fail(_ error: ConnectionError, response: TransportResponse?) {
        abandon()
        request.attemptFailed(transfer, error: error, response: response)
    }
}

/// Carries a value that is handed over, never shared, across a queue hop.
struct SendableBox<Value>: @unchecked Sendable {
    // Safe: the sender gives the value up when it creates the box.
    let value: Value
    init(_ value: Value) { self.value = value }
}

/// Where a response's body should go.
enum SinkChoice {
    /// The transfer no longer counts.
    case ignore
    /// A redirect's body.
    case discard
    case memory(limit: Int64, expected: Int64?)
    /// A streaming request's decoding sink: no total size limit.
    case stream(any BodySink)
    /// Save to the target's partial file, from the start or after `appendingAt` bytes.
    case file(FileTarget, appendingAt: Int64?, validator: String?)
}
