import ConnectionKit
import ConnectionKitTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("OfflineQueue delivery", .offThePool, .exclusive, .timeLimit(.minutes(20)))
struct OfflineDeliveryTests {
    @Test("requests started offline are queued, onOffline runs, and they arrive in order once the server is up")
    func offlineThenOnlineInOrder() async throws {
        let reservation = try PortReservation()
        let base = reservation.baseURL
        let server = TestServer()
        defer { server.stop() }
        server.route("POST", "/notes") { _ in .text("ok") }
        let directory = OfflineFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let queue = try OfflineQueue(directory: directory, configuration: OfflineFixtures.configuration())
        defer { queue.close() }
        queue.register(PostNote.self) { PostNote() }
        let queued = Collector<QueuedOperation>()
        let delivered = Collector<QueuedOperation>()
        let failures = Collector<String>()
        queue.deliveredHandler = { operation, _ in delivered.append(operation) }

        let texts = (0..<5).map { "note-\($0)" }
        for (index, text) in texts.enumerated() {
            let request = PostNote(base: base, text: text)
            request.callbackQueue = DispatchQueue(label: "OfflineDeliveryTests")
            request.failureHandler = { error in failures.append("\(error)") }
            request.start(via: queue) { operation in queued.append(operation) }
            // One at a time, so the queue order is the order the app wrote them in. The count to wait for
            // is fixed before the start: `onOffline` may run before `start(via:)` returns.
            await queued.wait(for: index + 1)
        }
        #expect(failures.all.isEmpty)
        #expect(queued.all.count == 5)
        #expect(queue.pending.map(\.sequence) == queued.all.map(\.sequence))
        #expect(delivered.all.isEmpty)

        try reservation.startServer(server)
        await delivered.wait(for: 5)
        let received = server.receivedRequests("/notes")
        let firstArrivals = received.reduce(into: [String]()) { seen, request in
            let body = request.bodyString ?? ""
            if !seen.contains(body) { seen.append(body) }
        }
        #expect(firstArrivals == texts)
        #expect(delivered.all.map(\.idempotencyKey) == queued.all.map(\.idempotencyKey))
        for request in received {
            #expect(request.header("Authorization") == "Bearer note-token")
            #expect(request.header("Idempotency-Key") != nil)
        }
        #expect(queue.pending.isEmpty)
        // Nothing is left on disk to send again: a queue opened on the folder afterwards is empty.
        queue.close()
        let reopened = try OfflineQueue(directory: directory, configuration: OfflineFixtures.configuration())
        defer { reopened.close() }
        #expect(reopened.pending.isEmpty)
    }

    @Test("a request that reaches the server is not queued: its handlers run as usual")
    func onlineRequestIsNotQueued() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("POST", "/notes") { _ in .text("ok") }
        server.route("POST", "/missing") { _ in .status(404, body: "no") }
        let directory = OfflineFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let queue = try OfflineQueue(directory: directory, configuration: OfflineFixtures.configuration())
        defer { queue.close() }
        let outcomes = Collector<String>()

        let ok = PostNote(base: server.baseURL, text: "hello")
        ok.callbackQueue = DispatchQueue(label: "OfflineDeliveryTests")
        ok.completionHandler = { data in outcomes.append("ok:\(String(decoding: data, as: UTF8.self))") }
        ok.start(via: queue) { _ in outcomes.append("queued") }
        await outcomes.wait(for: 1)

        let missing = PostNote(base: server.baseURL, text: "hello", path: "missing")
        missing.callbackQueue = DispatchQueue(label: "OfflineDeliveryTests")
        missing.failureHandler = { error in outcomes.append("failed:\((error as? ConnectionError)?.statusCode ?? 0)") }
        missing.start(via: queue) { _ in outcomes.append("queued") }
        await outcomes.wait(for: 2)

        #expect(outcomes.all == ["ok:ok", "failed:404"])
        #expect(queue.pending.isEmpty)
    }

    @Test("enqueue stores directly; the registry shows the queued operation while it is sent")
    func enqueueAndRegistry() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        let release = DispatchSemaphore(value: 0)
        let arrived = DispatchSemaphore(value: 0)
        server.route("POST", "/notes") { _ in
            arrived.signal()
            _ = release.wait(timeout: .now() + 10)
            return .text("ok")
        }
        let directory = OfflineFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let queue = try OfflineQueue(directory: directory, configuration: OfflineFixtures.configuration())
        defer { queue.close() }
        let delivered = Collector<QueuedOperation>()
        queue.deliveredHandler = { operation, _ in delivered.append(operation) }

        let operation = try queue.enqueue(PostNote(base: server.baseURL, text: "direct"))
        #expect(await arrived.signalled(within: 10))
        let inFlight = ConnectionRegistry.shared.requests(of: QueuedOperationRequest.self)
            .filter { $0.operation.id == operation.id }
        #expect(inFlight.count == 1)
        #expect(inFlight.first?.operation.typeName == "PostNote")
        release.signal()
        await delivered.wait(for: 1)
        #expect(delivered.all.first?.id == operation.id)
        #expect(delivered.all.first?.attempts == 1)
    }

    @Test("setReachable(true) attempts at once instead of waiting out the offline interval")
    func reachabilityHook() async throws {
        let reservation = try PortReservation()
        let base = reservation.baseURL
        let server = TestServer()
        defer { server.stop() }
        server.route("POST", "/notes") { _ in .text("ok") }
        let directory = OfflineFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let queue = try OfflineQueue(
            directory: directory, configuration: OfflineFixtures.configuration(online: 60, offline: 60))
        defer { queue.close() }
        let attempts = Collector<Date>()
        // TimedNote reads `authorization` once per attempt, so `attempts` counts them.
        queue.register(TimedNote.self) { TimedNote(base: base, attempts: attempts) }
        let delivered = Collector<QueuedOperation>()
        queue.deliveredHandler = { operation, _ in delivered.append(operation) }
        try queue.enqueue(TimedNote(base: base, attempts: Collector<Date>()))
        await attempts.wait(for: 1)
        // The first attempt was refused; the next would be a minute away.
        try reservation.startServer(server)
        let start = Date()
        queue.setReachable(true)
        await delivered.wait(for: 1, timeout: 20)
        #expect(Date().timeIntervalSince(start) < 20)
        #expect(queue.isReachable == true)
    }

    /// The client of the notes that have one of their own.
    static let ownClient = ConnectionClient.ownForTests(label: "offline-owned-note")

    @Test("a queued write is delivered by its class's client: in that client's history, not the shared one's")
    func deliveryBelongsToTheClassClient() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("POST", "/owned-notes") { _ in .text("ok") }
        let directory = OfflineFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let queue = try OfflineQueue(directory: directory, configuration: OfflineFixtures.configuration())
        defer { queue.close() }
        let delivered = Collector<QueuedOperation>()
        queue.deliveredHandler = { operation, _ in delivered.append(operation) }
        queue.register(PostNote.self) {
            PostNote(base: URL(fileURLWithPath: "/"), text: "", path: "owned-notes", client: Self.ownClient)
        }
        try queue.enqueue(PostNote(base: server.baseURL, text: "owned", path: "owned-notes", client: Self.ownClient))
        #expect(await delivered.wait(for: 1))
        let path = server.url("/owned-notes").absoluteString
        let owned = Self.ownClient.registry.history().filter { $0.redactedURL == path }
        #expect(owned.count == 1, "the class's client recorded the delivery")
        #expect(!ConnectionRegistry.shared.history().contains { $0.redactedURL == path }, "not the shared client")
    }
}
