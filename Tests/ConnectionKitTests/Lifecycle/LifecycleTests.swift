import ConnectionKit
import ConnectionKitTesting
import Foundation
import Testing

@Suite("Lifecycle: state, identifier, dates, exactly one ending", .offThePool, .timeLimit(.minutes(20)))
struct LifecycleTests {
    @Test("state goes idle → running → finished; dates, duration and urlResponse are set", .exclusive)
    func states() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/ok") { _ in TestResponse(body: .data(Data("ok".utf8)), delayBeforeHeaders: 0.2) }
        let request = FetchData(server.url("/ok"))
        #expect(request.state == .idle)
        #expect(request.dateStarted == nil)
        #expect(request.duration == nil)
        let endings = Endings(request)
        request.start()
        #expect(request.state == .running)
        #expect(request.isActive)
        #expect(request.dateStarted != nil)
        _ = try await endings.value()
        #expect(request.state == .finished)
        #expect(!request.isActive)
        #expect(request.urlResponse?.statusCode == 200)
        let started = try #require(request.dateStarted)
        let finished = try #require(request.dateFinished)
        #expect(finished >= started)
        #expect(try #require(request.duration) >= 0.15)
    }

    @Test("start while running is ignored: one request on the wire, one ending")
    func startWhileRunning() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/slow") { _ in TestResponse(body: .data(Data("x".utf8)), delayBeforeHeaders: 0.3) }
        let request = FetchData(server.url("/slow"))
        let endings = Endings(request)
        request.start()
        let identifier = request.identifier
        request.start()
        request.start()
        #expect(request.identifier == identifier)
        _ = try await endings.value()
        await endings.queue.drain()
        #expect(endings.count == 1)
        #expect(server.hits("/slow") == 1)
    }

    @Test("cancel before start and after the end are no-ops")
    func cancelOutsideARun() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/ok") { _ in .text("ok") }
        let request = FetchData(server.url("/ok"))
        let endings = Endings(request)
        request.cancel()
        #expect(request.state == .idle)
        request.start()
        _ = try await endings.value()
        request.cancel()
        await endings.queue.drain()
        #expect(request.state == .finished)
        #expect(endings.count == 1)
    }

    @Test("cancel ends a running request once with ConnectionError.cancelled, at once", .exclusive)
    func cancelRunning() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/never") { _ in TestResponse(fault: .neverRespond) }
        let request = FetchData(server.url("/never"))
        let endings = Endings(request)
        request.start()
        let before = Date()
        request.cancel()
        #expect(Date().timeIntervalSince(before) < 0.1)
        let error = try await endings.connectionError()
        #expect(error.isCancelled)
        // The ending itself, not only the call: the server never answers, so nothing else can end the run.
        let ended = try #require(endings.dates.first).timeIntervalSince(before)
        #expect(ended < 0.5, "the cancelled ending came \(ended) s after cancel()")
        #expect(request.state == .cancelled)
        #expect(!ConnectionRegistry.shared.activeRequests.contains { $0 === request })
        await endings.queue.drain()
        #expect(endings.count == 1)
    }

    @Test("a finished request can be started again, with a new identifier")
    func restart() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        let counter = Locked(0)
        server.route("/count") { _ in .text("\(counter.increment())") }
        let request = FetchData(server.url("/count"))
        let first = try await request.value()
        let firstIdentifier = request.identifier
        let second = try await request.value()
        #expect(String(decoding: first, as: UTF8.self) == "1")
        #expect(String(decoding: second, as: UTF8.self) == "2")
        #expect(request.identifier != firstIdentifier)
        #expect(request.state == .finished)
    }

    @Test("fire and forget: the registry keeps a started request alive until it ends")
    func fireAndForget() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/ok") { _ in TestResponse(body: .data(Data("ok".utf8)), delayBeforeHeaders: 0.1) }
        let endings = EndingRecorder()
        do {
            // No reference to the request is kept here: the recorder holds only its handlers' results.
            let request = FetchData(server.url("/ok"))
            endings.track(request, queue: testCallbackQueue)
            request.start()
        }
        #expect(await endings.ended(within: 15))
        #expect(endings.allCounts == [1])
        guard case .success? = endings.firstResults.first else {
            Issue.record("expected a completion, got \(endings.firstResults)")
            return
        }
    }

    @Test("the registry forgets a request before its handler runs")
    func forgottenBeforeHandler() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/ok") { _ in .text("ok") }
        let request = FetchData(server.url("/ok"))
        let stillRegistered = Locked<Bool?>(nil)
        let endings = EndingRecorder()
        endings.track(
            request, queue: testCallbackQueue,
            onFirstEnding: { [unowned request] in
                let registered = ConnectionRegistry.shared.activeRequests.contains { $0 === request }
                stillRegistered.withLock { $0 = registered }
            })
        request.start()
        #expect(await endings.ended(within: 15))
        guard case .success? = endings.first(of: request) else {
            Issue.record("expected a completion, got \(String(describing: endings.first(of: request)))")
            return
        }
        #expect(stillRegistered.withLock { $0 } == false)
    }
}
