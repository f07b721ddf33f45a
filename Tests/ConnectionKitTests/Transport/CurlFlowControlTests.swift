import ConnectionKitTesting
import Foundation
import Testing

@testable import ConnectionKit

#if canImport(FoundationNetworking)
    import FoundationNetworking

    /// A feed over a transport of the test's choice, whatever the process-wide default.
    private final class FeedOver: Feed, @unchecked Sendable {
        // Safe: only immutable stored properties.
        let chosen: ConnectionTransport
        init(_ transport: ConnectionTransport, _ target: URL, bufferLimit: Int) {
            chosen = transport
            super.init(target, bufferLimit: bufferLimit)
        }
        override var transport: ConnectionTransport { chosen }
    }

    /// A route sending `count` numbered events of about 1 KB each, as fast as the socket takes them.
    private func numberedEvents(_ server: TestServer, path: String, count: Int) {
        let padding = String(repeating: "z", count: 1000)
        server.route(path) { _ in
            var response = TestResponse.eventStream([])
            response.body = .stream(interval: 0, next: { $0 < count ? Data("data: \($0) \(padding)\n\n".utf8) : nil })
            return response
        }
    }

    /// Records what the transport hands over, through the transport seam itself: no request in between,
    /// so the test sees exactly when bytes arrive and can be as slow as it likes.
    private final class RecordingReceiver: TransferReceiver, @unchecked Sendable {
        // Safe: every mutable property lives in `state`, behind its lock; `delay` is a `let`.
        struct State {
            var body = Data()
            var status: Int?
            var completions: [(any Error)?] = []
            var chunks = 0
        }
        let state = Locked(State())
        /// How long each chunk takes to consume (the slow sink).
        let delay: TimeInterval
        /// Called after each chunk, with the bytes received so far; answers the receiver's demand.
        let onChunk: @Sendable (Int) -> TransferDemand
        /// When set, the first chunk waits for it: a sink stuck until the test lets it go.
        let hold: DispatchSemaphore?
        private let ended = Locked<[@Sendable () -> Void]>([])

        init(
            delay: TimeInterval = 0, hold: DispatchSemaphore? = nil,
            onChunk: @escaping @Sendable (Int) -> TransferDemand = { _ in .more }
        ) {
            self.delay = delay
            self.hold = hold
            self.onChunk = onChunk
        }

        func transferDidReceive(response: TransportResponse) {
            state.withLock { $0.status = response.statusCode }
        }

        func transferDidReceive(data: Data) -> TransferDemand {
            if let hold, state.withLock({ $0.chunks == 0 }) { _ = hold.wait(timeout: .now() + 60) }
            if delay > 0 { Thread.sleep(forTimeInterval: delay) }
            let total = state.withLock { state in
                state.body.append(data)
                state.chunks += 1
                return state.body.count
            }
            return onChunk(total)
        }

        func transferDidSend(totalBytes: Int64, expectedBytes: Int64) {}

        func transferDidCollect(metrics: TransferMetrics) {}

        func transferDidComplete(response: TransportResponse?, error: (any Error)?) {
            state.withLock { $0.completions.append(error) }
            ended.withLock { $0 }.forEach { $0() }
        }

        /// Waits for the completion, failing the test after `timeout`.
        func waitForCompletion(timeout: TimeInterval = 60) async {
            let done = await waitForSignal(timeout: timeout) { signal in
                ended.withLock { $0.append(signal) }
                if !state.withLock({ $0.completions.isEmpty }) { signal() }
            }
            if !done { Issue.record("the transfer did not complete within \(timeout) s") }
        }
    }

    /// Starts a GET of `url` on the shared libcurl transport's lane for bodies saved to a file. Returns its
    /// handle and the transfer's own body queue, whose figures no transfer of a test running beside it moves.
    private func startSavedToFile(
        _ url: URL, receiver: any TransferReceiver, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> (handle: any TransferHandle, queue: CurlBodyQueue) {
        var toFile = TransferOptions()
        toFile.lane = .savedToFile
        let handle = try CurlTransport.shared.get().startTransfer(
            URLRequest(url: url), options: toFile, receiver: receiver)
        let queue = try #require(
            (handle as? CurlTransfer)?.bodyQueue, "a file transfer queues its body", sourceLocation: sourceLocation)
        return (handle, queue)
    }

    /// Flow control on the libcurl transport: a consumer that falls behind pauses the socket rather
    /// than failing (streams) or queueing without bound (bodies saved to a file).
    @Suite("libcurl flow control", .offThePool, .timeLimit(.minutes(10)), .exclusive)
    struct CurlFlowControlTests {
        @Test("a slow stream consumer on libcurl gets every element in order, with at most the bound waiting")
        func slowStreamConsumerLosesNothing() async throws {
            let server = try TestServer.started()
            defer { server.stop() }
            let count = 6000
            numberedEvents(server, path: "/firehose", count: count)
            let request = FeedOver(try .libcurl(), server.url("/firehose"), bufferLimit: 64)
            let recorder = StreamRecorder(request, queue: DispatchQueue(label: "slow consumer"))
            let worst = Locked((elements: 0, bytes: 0))
            let seen = Locked<[Int]>([])
            request.elementHandler = { event in
                // The slow consumer: about 2 MB/s, far below what loopback delivers.
                Thread.sleep(forTimeInterval: 0.0005)
                let waiting = request.streaming.withLock { $0.buffered }
                worst.withLock { $0 = (max($0.elements, waiting.elements), max($0.bytes, waiting.bytes)) }
                seen.withLock { $0.append(Int(event.data.prefix { $0 != " " }) ?? -1) }
            }
            request.start()
            await recorder.ended(within: 60)
            guard case .success(let total)? = recorder.endings.first else {
                Issue.record("expected the stream to complete (no streamBufferFull), got \(recorder.endings)")
                return
            }
            #expect(total == count)
            #expect(seen.withLock { $0 } == Array(0..<count))
            // The bound, plus the elements of the chunk that crossed it (a chunk is at most 16 KiB: 16 events).
            let peak = worst.withLock { $0 }
            #expect(peak.elements <= 64 + 17, "\(peak.elements) elements waited at once")
            #expect(peak.bytes <= (64 + 17) * 1024, "\(peak.bytes) bytes waited at once")
            #expect(peak.elements > 32, "the consumer never fell behind: the test proves nothing")
        }

        @Test("a slow stream consumer on libcurl pauses the socket once about 1 MiB waits, far below the 16 MiB bound")
        func slowStreamConsumerPausesEarly() async throws {
            let server = try TestServer.started()
            defer { server.stop() }
            let count = 6000
            numberedEvents(server, path: "/firehose", count: count)
            // An element bound that never binds: only bytes count here (6 MB of events in all).
            let request = FeedOver(try .libcurl(), server.url("/firehose"), bufferLimit: 100_000)
            #expect(request.maximumBufferedBytes == 16 * 1024 * 1024)
            let recorder = StreamRecorder(request, queue: DispatchQueue(label: "slow consumer"))
            let worst = Locked(0)
            request.elementHandler = { _ in
                Thread.sleep(forTimeInterval: 0.0005)
                let waiting = request.streaming.withLock { $0.buffered.bytes }
                worst.withLock { $0 = max($0, waiting) }
            }
            request.start()
            await recorder.ended(within: 60)
            guard case .success(let total)? = recorder.endings.first else {
                Issue.record("expected the stream to complete, got \(recorder.endings)")
                return
            }
            #expect(total == count)
            // The threshold, plus the chunk that crossed it (at most 16 KiB) and one event.
            let peak = worst.withLock { $0 }
            #expect(peak <= StreamLimits.pauseThresholdBytes + 17 * 1024, "\(peak) bytes waited at once")
            #expect(
                peak > StreamLimits.pauseThresholdBytes / 2, "the consumer never fell behind: the test proves nothing")
        }

        @Test("cancelling a stream paused by its consumer ends it exactly once, with nothing after the ending")
        func cancelWhilePaused() async throws {
            let server = try TestServer.started()
            defer { server.stop() }
            numberedEvents(server, path: "/firehose", count: 100_000)
            server.route("/fine") { _ in .text("fine") }
            let request = FeedOver(try .libcurl(), server.url("/firehose"), bufferLimit: 64)
            let recorder = StreamRecorder(request, queue: DispatchQueue(label: "blocked consumer"))
            let gate = DispatchSemaphore(value: 0)
            let open = Locked(false)
            let lateElements = Locked(0)
            request.elementHandler = { _ in
                // The handler and the endings share one serial queue: an element after the ending shows here.
                if !recorder.endings.isEmpty { lateElements.withLock { $0 += 1 } }
                if !open.withLock({ $0 }) { _ = gate.wait(timeout: .now() + 30) }
            }
            request.start()
            // The consumer holds the first element: the buffer fills and the transfer pauses.
            #expect(await eventually { request.streaming.withLock { $0.paused } })
            let receivedWhenPaused = request.elementCount
            request.cancel()
            open.withLock { $0 = true }
            gate.signal()
            await recorder.ended()
            #expect(receivedWhenPaused < 64 + 40)
            // Another request on the same transport runs to its end meanwhile, and no second ending came.
            let next = OverLibcurlBody(server.url("/fine"))
            let body = try await Endings(next).valueAfterStarting(next)
            #expect(String(decoding: body, as: UTF8.self) == "fine")
            #expect(recorder.endings.count == 1)
            #expect(lateElements.withLock { $0 } == 0)
            guard case .failure(let error as ConnectionError)? = recorder.endings.first else {
                Issue.record("expected a cancel, got \(recorder.endings)")
                return
            }
            #expect(error.isCancelled)
        }

        @Test("a receiver that answers wait gets no more body until it demands more, then the whole body byte for byte")
        func pauseThenResume() async throws {
            let server = try TestServer.started()
            defer { server.stop() }
            let length: Int64 = 8 << 20
            server.route("/big") { _ in TestResponse(body: .generated(length: length, seed: 3)) }
            let transport = try CurlTransport.shared.get()
            let handle = Locked<(any TransferHandle)?>(nil)
            let pausedAt = Locked<Int?>(nil)
            let receiver = RecordingReceiver { total in
                // Wait after the first chunk, answered from inside the callback (as a streaming request does).
                let first = pausedAt.withLock { pausedAt in
                    defer { if pausedAt == nil { pausedAt = total } }
                    return pausedAt == nil
                }
                return first ? .wait : .more
            }
            try handle.withLock {
                $0 = try transport.startTransfer(URLRequest(url: server.url("/big")), receiver: receiver)
            }
            #expect(await eventually { pausedAt.withLock { $0 } != nil })
            // While paused, at most the chunk libcurl was already handing over arrives.
            let paused = try #require(pausedAt.withLock { $0 })
            let before = receiver.state.withLock { $0.body.count }
            try await Task.sleep(nanoseconds: 300_000_000)
            let after = receiver.state.withLock { $0.body.count }
            #expect(after - before <= 16 * 1024, "\(after - before) bytes arrived while paused")
            #expect(after < Int(length) / 2, "pausing did not hold the body back (\(after) of \(length) bytes)")
            #expect(paused <= 64 * 1024)
            #expect(handle.withLock { $0 }?.followsDemand == true)
            handle.withLock { $0 }?.demandMore()
            await receiver.waitForCompletion()
            let state = receiver.state.withLock { $0 }
            #expect(state.completions.count == 1)
            #expect(state.completions.first.map { $0 == nil } == true)
            #expect(state.status == 200)
            #expect(state.body == TestBody.generatedBytes(length: length, seed: 3))
        }

        @Test(
            "a gzip body paused after its first decoded chunk arrives whole after the resume, nothing lost or doubled")
        func pauseInsideDecompression() async throws {
            let server = try TestServer.started()
            defer { server.stop() }
            // Python's gzip.compress(bytes(1_000_000), mtime=0): 1,003 bytes that libcurl inflates into many
            // chunks at once, so the pause lands in the middle of its decoder's output.
            let zeros = Data(
                hex: "1f8b0800000000000203edc101010000008220ffaf6e484001" + String(repeating: "00", count: 968)
                    + "af069ecb791240420f00")
            server.route("/zeros") { _ in
                TestResponse(headers: [TestHeader("Content-Encoding", "gzip")], body: .data(zeros))
            }
            let transport = try CurlTransport.shared.get()
            let handle = Locked<(any TransferHandle)?>(nil)
            let firstChunk = Locked<Int?>(nil)
            let receiver = RecordingReceiver { total in
                let first = firstChunk.withLock { firstChunk in
                    defer { if firstChunk == nil { firstChunk = total } }
                    return firstChunk == nil
                }
                return first ? .wait : .more
            }
            try handle.withLock {
                $0 = try transport.startTransfer(URLRequest(url: server.url("/zeros")), receiver: receiver)
            }
            #expect(await eventually { firstChunk.withLock { $0 } != nil })
            let first = try #require(firstChunk.withLock { $0 })
            try await Task.sleep(nanoseconds: 100_000_000)
            // Paused: nothing more than the chunk already on its way, and no completion.
            #expect(receiver.state.withLock { $0.chunks } <= 2)
            #expect(receiver.state.withLock { $0.completions.isEmpty })
            handle.withLock { $0 }?.demandMore()
            await receiver.waitForCompletion()
            let state = receiver.state.withLock { $0 }
            #expect(first < 1_000_000, "the whole body came in one chunk: the test proves nothing")
            #expect(state.completions.count == 1)
            #expect(state.completions.first.map { $0 == nil } == true, "\(state.completions)")
            #expect(state.body == Data(count: 1_000_000))
        }

        @Test(
            "a demand for more that overtakes the receiver's wait (from another thread, first) is not lost: the body arrives whole"
        )
        func demandOvertakingTheWait() async throws {
            let server = try TestServer.started()
            defer { server.stop() }
            let length: Int64 = 4 << 20
            server.route("/big") { _ in TestResponse(body: .generated(length: length, seed: 5)) }
            let transport = try CurlTransport.shared.get()
            let handle = Locked<(any TransferHandle)?>(nil)
            let overtaken = Locked(0)
            let receiver = RecordingReceiver { _ in
                // A streaming request whose consumer takes the elements at once: its demand for more reaches
                // the transfer from another thread before this answer does. Each pair cancels out.
                guard let current = handle.withLock({ $0 }), overtaken.withLock({ $0 }) < 50 else { return .more }
                let asked = DispatchSemaphore(value: 0)
                DispatchQueue.global().async {
                    current.demandMore()
                    asked.signal()
                }
                asked.wait()
                overtaken.withLock { $0 += 1 }
                return .wait
            }
            try handle.withLock {
                $0 = try transport.startTransfer(URLRequest(url: server.url("/big")), receiver: receiver)
            }
            await receiver.waitForCompletion()
            // A transfer left waiting is let go, so that the server's stop does not wait for it to read.
            handle.withLock { $0 }?.cancel()
            let state = receiver.state.withLock { $0 }
            #expect(overtaken.withLock { $0 } > 0, "no demand overtook a wait: the test proves nothing")
            #expect(state.completions.count == 1)
            #expect(state.completions.first.map { $0 == nil } == true, "\(state.completions)")
            // Compared as one Bool: a failed `==` of two 4 MiB bodies would make the test runner diff them.
            let whole = state.body == TestBody.generatedBytes(length: length, seed: 5)
            #expect(whole, "\(state.body.count) of \(length) bytes, or not the bytes sent")
        }

        @Test(
            "a body saved to a file through a sink that cannot keep up pauses at the 2 MiB bound and arrives byte for byte"
        )
        func slowFileSinkPauses() async throws {
            let server = try TestServer.started()
            defer { server.stop() }
            let length: Int64 = 24 << 20
            server.route("/big") { _ in TestResponse(body: .generated(length: length, seed: 9)) }
            // The sink is stuck on the first chunk until the queue filled up and the transfer paused, then
            // slow (0.4 ms a chunk), so that it pauses again whenever loopback outpaces it.
            let hold = DispatchSemaphore(value: 0)
            let receiver = RecordingReceiver(delay: 0.0004, hold: hold)
            let queue = try startSavedToFile(server.url("/big"), receiver: receiver).queue
            #expect(await eventually { queue.pauses.load(ordering: .relaxed) > 0 })
            // The pause can come while the last bytes are still gathered; they are queued when the loop
            // iteration ends.
            #expect(await eventually { queue.waitingBytes >= CurlBodyQueue.bound })
            hold.signal()
            await receiver.waitForCompletion(timeout: 120)
            let state = receiver.state.withLock { $0 }
            #expect(state.completions.count == 1)
            #expect(state.completions.first.map { $0 == nil } == true)
            #expect(state.body == TestBody.generatedBytes(length: length, seed: 9))
            #expect(queue.pauses.load(ordering: .relaxed) > 0, "the sink kept up: the test proves nothing")
            // The bound, plus the one piece (at most libcurl's CURL_MAX_WRITE_SIZE, 16 KiB) taken when the bytes
            // queued and gathered were just below it: gathered bytes count as queued.
            let peak = queue.peakWaitingBytes.load(ordering: .relaxed)
            #expect(peak < CurlBodyQueue.bound + (16 << 10), "\(peak) bytes waited at once")
            #expect(queue.waitingBytes == 0)
        }

        @Test(
            "a body saved to a file reaches its sink in chunks gathered from libcurl's 16 KiB pieces, whose buffers are reused"
        )
        func savedBodyPiecesGathered() async throws {
            let server = try TestServer.started()
            defer { server.stop() }
            // Sent in blocks of 64 KiB: each read of the socket brings several of libcurl's 16 KiB pieces. Long
            // enough that buffers never reused (one per chunk) outnumber by far what a loaded run keeps in hand.
            let length: Int64 = 32 << 20
            server.route("/big") { _ in TestResponse(body: .generated(length: length, seed: 4)) }
            let receiver = RecordingReceiver()
            let queue = try startSavedToFile(server.url("/big"), receiver: receiver).queue
            await receiver.waitForCompletion(timeout: 120)
            let state = receiver.state.withLock { $0 }
            #expect(state.completions.count == 1)
            #expect(state.body == TestBody.generatedBytes(length: length, seed: 4))
            // Piece by piece, the chunks could average no more than 16 KiB.
            #expect(
                state.chunks > 0 && Int64(state.chunks) * (32 << 10) <= length,
                "\(state.chunks) chunks for \(length) bytes")
            // Every buffer came back once its chunk was written, and the last ones wait for reuse.
            #expect(await eventually { queue.buffers.freeCount > 0 })
            // Reused, not only kept: a buffer per chunk would be every one. Beside stress-ng, returns come in
            // bursts larger than the free list keeps (a quarter of the takes were new there), so the bound is half.
            let handedOut = queue.buffers.handedOut
            let mostAtOnce = CurlBodyQueue.bound / CurlBodyBuffers.capacity + CurlBodyBuffers.keptFree + 2
            #expect(handedOut.takes >= state.chunks, "\(handedOut.takes) buffers for \(state.chunks) chunks")
            #expect(
                handedOut.allocations <= max(mostAtOnce, handedOut.takes / 2),
                "\(handedOut.allocations) of \(handedOut.takes) buffers newly allocated: they are not reused")
        }

        @Test("cancelling a file transfer paused by its slow sink delivers nothing more, and the transport goes on")
        func cancelFileTransferWhilePaused() async throws {
            let server = try TestServer.started()
            defer { server.stop() }
            server.route("/big") { _ in TestResponse(body: .generated(length: 64 << 20, seed: 1)) }
            server.route("/fine") { _ in .text("fine") }
            let hold = DispatchSemaphore(value: 0)
            let receiver = RecordingReceiver(hold: hold)
            let (handle, queue) = try startSavedToFile(server.url("/big"), receiver: receiver)
            #expect(await eventually { queue.pauses.load(ordering: .relaxed) > 0 })
            handle.cancel()
            let chunksAtCancel = receiver.state.withLock { $0.chunks }
            hold.signal()
            let next = RecordingReceiver()
            _ = try startSavedToFile(server.url("/fine"), receiver: next)
            await next.waitForCompletion()
            #expect(String(decoding: next.state.withLock { $0.body }, as: UTF8.self) == "fine")
            // At most the chunk being delivered when cancel() returned, and never a completion.
            #expect(receiver.state.withLock { $0.chunks } <= chunksAtCancel + 1)
            #expect(receiver.state.withLock { $0.completions }.isEmpty)
            #expect(await eventually { queue.waitingBytes == 0 })
        }
    }

    /// A GET over libcurl whatever the default transport.
    private final class OverLibcurlBody: ConnectionRequest<Data>, @unchecked Sendable {
        // Safe: only immutable stored properties.
        let target: URL
        init(_ target: URL) { self.target = target }
        override var url: URL? { target }
        override var transport: ConnectionTransport { (try? .libcurl()) ?? .urlSession }

        /// Fails the request, naming why, when libcurl cannot load: a test of libcurl must not pass on URLSession.
        override func makeURLRequest() throws -> URLRequest {
            _ = try ConnectionTransport.libcurl()
            return try super.makeURLRequest()
        }
    }

    extension Endings {
        /// Starts `request` and returns its value.
        fileprivate func valueAfterStarting(_ request: AnyConnectionRequest) async throws -> Output {
            request.start()
            return try await value()
        }
    }
#endif
