import ConnectionKit
import ConnectionKitTesting
import Foundation
import Testing

/// An endless feed: one event every 10 ms.
private func endlessEvents(_ server: TestServer) {
    server.route("/endless") { _ in
        var response = TestResponse.eventStream([])
        response.body = .stream(interval: 0.01, next: { Data("id: \($0)\ndata: tick \($0)\n\n".utf8) })
        return response
    }
}

/// Its own class, so that `cancelAll` touches no other test's requests.
private final class RegistryCancelledFeed: Feed, @unchecked Sendable {}

/// How long the recorder watches for a late element or a second ending.
private let settleWindow: TimeInterval = 0.5

@Suite(
    "Cancelling a stream mid-way ends it once, with no element after the ending", .offThePool, .timeLimit(.minutes(2)))
struct StreamCancellationTests {
    /// Who cancels the stream mid-way.
    enum Canceller: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case method = "cancel()"
        case registry = "the registry's cancelAll"
        var testDescription: String { rawValue }
    }

    @Test(
        "cancel() or the registry's cancelAll mid-stream: one cancelled ending, no element after it",
        arguments: Canceller.allCases)
    func cancelMidStream(by canceller: Canceller) async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        endlessEvents(server)
        let url = server.url("/endless")
        let request: Feed = canceller == .method ? Feed(url) : RegistryCancelledFeed(url)
        let recorder = StreamRecorder(request, settle: settleWindow)
        request.start()
        await recorder.wait { $0.elements.count >= 3 }
        #expect(
            (ConnectionRegistry.shared.snapshot().first { $0.identifier == request.identifier }?.elementCount ?? 0) >= 3
        )
        switch canceller {
        case .method: request.cancel()
        case .registry: ConnectionRegistry.shared.cancelAll(RegistryCancelledFeed.self)
        }
        // Returns after the settle window: a second ending or a late element shows below.
        let error = try await recorder.connectionError()
        #expect(error.isCancelled)
        #expect(recorder.endings.count == 1)
        #expect(!recorder.elementAfterEnding)
        #expect(!ConnectionRegistry.shared.activeRequests.contains { $0 === request })
    }

    @Test("cancelling the Task iterating elements() cancels the request: one ending, the stream stops")
    func cancelTask() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        endlessEvents(server)
        let request = Feed(server.url("/endless"))
        let recorder = StreamRecorder(request, settle: settleWindow)
        let seen = Locked(0)
        let consumer = Task {
            for try await _ in request.elements() {
                seen.withLock { $0 += 1 }
            }
        }
        await recorder.wait { $0.elements.count >= 3 }
        consumer.cancel()
        // AsyncThrowingStream ends a cancelled Task's iteration itself (it returns nil), or the
        // request's cancellation arrives first (it throws cancelled): both stop the loop.
        if case .failure(let error) = await consumer.result {
            #expect((error as? ConnectionError)?.isCancelled == true)
        }
        let seenAtEnd = seen.withLock { $0 }
        // Returns after the settle window: a second ending or a late element shows below.
        #expect(try await recorder.connectionError().isCancelled)
        #expect(request.state == .cancelled)
        #expect(recorder.endings.count == 1)
        #expect(!recorder.elementAfterEnding)
        #expect(seen.withLock { $0 } == seenAtEnd, "the loop ended: no element reaches it after the ending")
    }

    @Test("dropping the elements() stream before its end cancels the request")
    func dropStream() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        endlessEvents(server)
        let request = Feed(server.url("/endless"))
        let recorder = StreamRecorder(request)
        var taken = 0
        for try await _ in request.elements() {
            taken += 1
            if taken == 3 { break }
        }
        let error = try await recorder.connectionError()
        #expect(error.isCancelled)
    }
}
