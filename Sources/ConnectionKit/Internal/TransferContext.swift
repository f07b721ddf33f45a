import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Receives the events of one transfer (one attempt, or one redirect hop) for its request.
final class TransferContext: TransferReceiver, @unchecked Sendable {
    // Safe: `serial` is written once before the transfer starts (the transport's lock orders it
    // before every event); the sink lives behind `slot`'s lock.
    let request: AnyConnectionRequest
    let run: UInt64
    var serial: UInt64 = 0
    private let fileTarget: FileTarget?
    private let slot = Locked(SinkSlot())
    private let progressInterval: TimeInterval

    /// The body's sink, and whether the transfer was abandoned (a sink that arrives later is
    /// discarded at once, so that no temporary file outlives a cancel).
    private struct SinkSlot {
        var sink: (any BodySink)?
        var abandoned = false
    }

    init(request: AnyConnectionRequest, run: UInt64, fileTarget: FileTarget?) {
        self.request = request
        self.run = run
        self.fileTarget = fileTarget
        self.progressInterval = request.progressInterval
    }

    func transferDidCollect(metrics: TransferMetrics) {
        request.transferDidCollect(metrics: metrics, run: run, serial: serial)
    }

    func transferDidReceive(response: HTTPURLResponse) {
        let choice = request.transferDidReceive(response: response, run: run, serial: serial, fileTarget: fileTarget)
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

    func transferDidReceive(data: Data) {
        do {
            try slot.withLock { try $0.sink?.append(data) }
        } catch {
            fail(request.contextualize(error, as: { .fileSystem(underlying: $0) }), response: nil)
            return
        }
        request.transferDidProgress(
            .download, bytes: Int64(data.count), total: nil, run: run, serial: serial, interval: progressInterval)
    }

    func transferDidSend(totalBytes: Int64, expectedBytes: Int64) {
        request.transferDidProgress(
            .upload, bytes: nil, total: (totalBytes, expectedBytes), run: run, serial: serial,
            interval: progressInterval)
    }

    func transferDidComplete(response: HTTPURLResponse?, error: (any Error)?) {
        let body = slot.withLock { slot in
            defer { slot.sink = nil }
            return slot.sink
        }
        let (run, serial, request) = (self.run, self.serial, self.request)
        let finishedBody = SendableBox(body)
        ConnectionQueues.processing.async {
            request.transferDidComplete(
                run: run, serial: serial, response: response, error: error, sink: finishedBody.value)
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

    private func fail(_ error: ConnectionError, response: HTTPURLResponse?) {
        abandon()
        request.attemptFailed(run: run, serial: serial, error: error, response: response)
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
