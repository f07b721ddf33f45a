import ConnectionKitTesting
import Foundation
import Testing

@testable import ConnectionKit

/// A client's shutdown: no new request starts, requests in flight drain until the grace period ends and
/// are cancelled then, each ending comes exactly once, and no thread of the client is left.
@Suite("Shutting a client down", .offThePool, .timeLimit(.minutes(20)), .exclusive)
struct ConnectionClientShutdownTests {
    /// Long enough for every request that answers to finish under a loaded machine, short beside the hangs.
    static let gracePeriod: TimeInterval = 8

    @Test(
        "shutdown under load (200 requests in flight, 50 that never get an answer) drains, then cancels: every ending exactly once, no thread of the client left",
        arguments: [ConnectionClient.TransportChoice.urlSession, .libcurl])
    func shutdownUnderLoad(transport: ConnectionClient.TransportChoice) async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/fast") { _ in .text("fast") }
        server.route("/slow") { _ in TestResponse(body: .data(Data("slow".utf8)), delayBeforeHeaders: 0.3) }
        server.route("/hang") { _ in TestResponse(fault: .neverRespond) }
        server.route("/late") { _ in .text("late") }

        let before = ProcessThreads.all()
        let client = try ConnectionClient(checking: transport, label: "shutdown-load")
        let prefix = client.threadNamePrefix
        #expect(before.allSatisfy { !$0.name.hasPrefix(prefix) })
        let recorder = EndingRecorder()
        let paths = (0..<200).map { ["/hang", "/slow", "/fast", "/fast"][$0 % 4] }
        let requests = paths.enumerated().map { index, path in FetchOnClient(server.url("\(path)?\(index)"), on: client)
        }
        for request in requests {
            recorder.track(request, queue: testCallbackQueue)
            request.start()
        }
        #expect(await server.waitForHits("/hang", count: 50, timeout: 60), "every hanging request is on the wire")
        let owned = client.ownedThreadIDs
        let running = ProcessThreads.listed(owned)
        #expect(
            running.count == (transport == .libcurl ? ConnectionClient.libcurlThreadCount : 0),
            "the client's libcurl loops: \(running)")
        #expect(running.allSatisfy { $0.name.hasPrefix(prefix) }, "named after the client: \(running)")
        #expect(running.allSatisfy { thread in !before.contains { $0.id == thread.id } })

        // Started while the others drain: refused, nothing sent.
        let late = FetchOnClient(server.url("/late"), on: client)
        recorder.track(late, queue: testCallbackQueue)
        let began = Date()
        let stopped = await waitForSignal(timeout: Self.gracePeriod + 60) { stopped in
            client.beginShutdown(gracePeriod: Self.gracePeriod, whenStopped: stopped)
            late.start()
        }
        let took = Date().timeIntervalSince(began)
        #expect(stopped, "the shutdown returned")
        #expect(took >= Self.gracePeriod - 0.5, "the hanging requests had the grace period (took \(took) s)")
        #expect(client.registry.count == 0)
        // Counted at once: the shutdown returned only after the kernel dropped the client's threads.
        let after = ProcessThreads.all()
        let left = after.filter { thread in owned.contains(Int32(thread.id)) }
        #expect(left.isEmpty, "threads of the client after its shutdown: \(left)")
        // A URLSession client's threads are Foundation's, shared by the process: what it owns are its
        // sessions, and URLSession reports each one invalidated once it let go of it.
        if let sessions = client.transport.implementation as? URLSessionTransport {
            let invalidated = await eventually(timeout: 30) { sessions.isInvalidated }
            #expect(invalidated, "the client's URLSession sessions were not invalidated by its shutdown")
        }
        #expect(transport == .libcurl || client.transport.implementation is URLSessionTransport)

        await recorder.ended(within: 30)
        for (request, path) in zip(requests, paths) {
            switch (path, recorder.first(of: request)) {
            case ("/hang", .failure(let error as ConnectionError)?) where error.isCancelled: continue
            case ("/slow", .success?), ("/fast", .success?): continue
            case (_, let ending): Issue.record("\(path) ended with \(String(describing: ending))")
            }
        }
        #expect(Self.kind(recorder.first(of: late)) == "clientShutDown")
        #expect(server.hits("/late") == 0)
        #expect(client.registry.statistics(of: FetchOnClient.self)?.requests == 201)
    }

    @Test("a request started after the shutdown fails once with clientShutDown, and nothing is sent")
    func startAfterShutdownIsRefused() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/after") { _ in .text("after") }
        let client = try ConnectionClient(checking: .libcurl, label: "after-shutdown")
        #expect(!client.isShutDown)
        try await within(30, "the shutdown of an idle client") { await client.shutdown() }
        #expect(client.isShutDown)
        let request = FetchOnClient(server.url("/after"), on: client)
        let error = try await Endings(request).connectionErrorAfterStart(request)
        guard case .clientShutDown = error.kind else {
            Issue.record("expected clientShutDown, got \(error)")
            return
        }
        #expect(error.requestTypeName == "FetchOnClient")
        #expect(server.hits("/after") == 0)
        await #expect(throws: ConnectionError.self) {
            try await FetchOnClient(server.url("/after"), on: client).value()
        }
        // A second shutdown of a stopped client returns at once.
        try await within(5, "a second shutdown") { await client.shutdown() }
        client.shutdownAndWait()
    }

    @Test("shutdownAndWait blocks until the requests in flight ended and the client's threads are gone")
    func shutdownAndWaitBlocks() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/slow") { _ in TestResponse(body: .data(Data("slow".utf8)), delayBeforeHeaders: 0.5) }
        let client = try ConnectionClient(checking: .libcurl, label: "and-wait")
        let request = FetchOnClient(server.url("/slow"), on: client)
        let endings = Endings(request)
        request.start()
        #expect(await server.waitForHits("/slow", timeout: 30))
        // A loop thread's id is listed once the thread runs, which may be a moment after the request
        // reached the server: wait for every one, or a thread left out here could outlive the shutdown
        // unseen.
        _ = await eventually { client.ownedThreadIDs.count == ConnectionClient.libcurlThreadCount }
        let owned = client.ownedThreadIDs
        let done = await waitForSignal(timeout: 60) { done in
            Thread.detachNewThread {
                client.shutdownAndWait(gracePeriod: 30)
                done()
            }
        }
        #expect(done)
        #expect(request.state != .running, "the request ended before the shutdown returned")
        #expect(owned.count == ConnectionClient.libcurlThreadCount)
        #expect(ProcessThreads.listed(owned).isEmpty, "the client's loops are gone")
        #expect(try await endings.value() == Data("slow".utf8), "drained, not cancelled")
    }

    @Test(
        "the shared client shuts down from a program's main with shutdownAndWait: it drains, then refuses, and so do the process's transports"
    )
    func theSharedClientShutsDownFromMain() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/slow") { _ in TestResponse(body: .data(Data("slow".utf8)), delayBeforeHeaders: 0.5) }
        let child = try ChildProcess(["shutdown-shared", server.url("/slow").absoluteString, "5"])
        let (status, printed) = await child.finish(timeout: 60)
        #expect(status == 0, "\(printed)")
        #expect(printed.contains("ENDED 5 0\n"), "every request in flight drained: \(printed)")
        #expect(printed.contains("AFTER clientShutDown\n"), "\(printed)")
        #expect(printed.contains("TRANSPORT clientShutDown\n"), "\(printed)")
        #expect(server.hits("/slow") == 5, "nothing was sent after the shutdown")
    }

    private static func kind(_ ending: Result<Data, any Error>?) -> String? {
        guard case .failure(let error as ConnectionError)? = ending else { return nil }
        return "\(error.kind.name)"
    }
}
