import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Receives the events of one transfer (one attempt, or one redirect hop) for its request.
final class TransferContext: TransferReceiver, @unchecked Sendable {
    // Safe: `serial` is written once before the transfer starts (the transport's lock orders it
    // before every event); the sink lives behind `sink`'s lock.
    let request: AnyConnectionRequest
    let run: UInt64
    var serial: UInt64 = 0
    private let fileDestination: URL?
    private let sink = Locked<(any BodySink)?>(nil)
    private let progressInterval: TimeInterval

    init(request: AnyConnectionRequest, run: UInt64, fileDestination: URL?) {
        self.request = request
        self.run = run
        self.fileDestination = fileDestination
        self.progressInterval = request.progressInterval
    }

    func transferDidReceive(response: HTTPURLResponse) {
        let choice = request.transferDidReceive(response: response, run: run, serial: serial)
        do {
            let newSink: any BodySink
            switch choice {
            case .ignore:
                return
            case .discard:
                newSink = DiscardSink()
            case .memory(let limit, let expected):
                newSink = MemorySink(limit: limit, expectedLength: expected)
            case .file(let destination):
                newSink = try FileSink(destination: destination)
            }
            let previous = sink.withLock { sink in
                defer { sink = newSink }
                return sink
            }
            previous?.discard()
        } catch {
            fail(request.contextualize(error, as: { .fileSystem(underlying: $0) }), response: response)
        }
    }

    func transferDidReceive(data: Data) {
        do {
            try sink.withLock { try $0?.append(data) }
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
        let body = sink.withLock { sink in
            defer { sink = nil }
            return sink
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
        let body = sink.withLock { sink in
            defer { sink = nil }
            return sink
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
    case file(URL)
}
