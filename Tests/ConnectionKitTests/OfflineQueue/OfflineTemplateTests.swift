import Foundation
import Testing

@testable import ConnectionKit

/// The request an ``OfflineQueue`` keeps as its class's template (when no factory is registered) must not be
/// forgotten while another write of the class is on its way into the queue: the write would then wait for a
/// registration that never comes. In CI a 400 dead-lettered the first write while the second was being synced
/// to the journal, and the second was never sent.
@Suite("OfflineQueue templates", .offThePool, .timeLimit(.minutes(10)))
struct OfflineTemplateTests {
    private static func operation(_ request: AnyConnectionRequest, sequence: UInt64) -> QueuedOperation {
        QueuedOperation(
            id: UUID(), sequence: sequence, typeName: request.typeName, method: "POST",
            url: URL(string: "http://127.0.0.1:1/notes")!, headerFields: [:], removedSecretHeaderNames: [],
            removedSecretQueryItemNames: [], idempotencyKey: "key", enqueuedAt: Date(), attempts: 0, bodyLength: 0)
    }

    @Test("resolving the last pending write of a class keeps its template while another write is being enqueued")
    func templateOutlivesAResolvedWriteDuringAnEnqueue() {
        let first = PostNote(base: URL(string: "http://127.0.0.1:1")!, text: "bad")
        let second = PostNote(base: URL(string: "http://127.0.0.1:1")!, text: "good")
        var state = OfflineQueueState()
        state.beginEnqueue(of: first)
        let rejected = Self.operation(first, sequence: 1)
        state.pending.append(rejected)
        state.endEnqueue(of: first.typeName)

        state.beginEnqueue(of: second)
        // The first write is dead-lettered before the second joins `pending`.
        let removed = state.removePending(rejected)
        #expect(removed)
        #expect(state.liveTemplates[second.typeName] === first)

        state.pending.append(Self.operation(second, sequence: 2))
        state.endEnqueue(of: second.typeName)
        #expect(state.liveTemplates[second.typeName] === first)
    }

    @Test("a class's template is forgotten once nothing of it is pending or being enqueued")
    func templateIsForgottenWhenUnused() {
        let request = PostNote(base: URL(string: "http://127.0.0.1:1")!, text: "one")
        var state = OfflineQueueState()
        state.beginEnqueue(of: request)
        let operation = Self.operation(request, sequence: 1)
        state.pending.append(operation)
        state.endEnqueue(of: request.typeName)
        #expect(state.liveTemplates[request.typeName] === request)

        let removed = state.removePending(operation)
        #expect(removed)
        #expect(state.liveTemplates[request.typeName] == nil)
        #expect(state.enqueuesUnderWay.isEmpty)
    }

    @Test("a failed enqueue leaves no template behind")
    func failedEnqueueForgetsItsTemplate() {
        let request = PostNote(base: URL(string: "http://127.0.0.1:1")!, text: "one")
        var state = OfflineQueueState()
        state.beginEnqueue(of: request)
        state.endEnqueue(of: request.typeName)
        #expect(state.liveTemplates[request.typeName] == nil)
        #expect(state.enqueuesUnderWay.isEmpty)
    }

    @Test("registering a factory whose instance has no URL says so in the log, naming the class")
    func factoryWithoutURLIsLogged() throws {
        let directory = OfflineFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let log = Collector<String>()
        let queue = try OfflineQueue(directory: directory, configuration: OfflineFixtures.configuration(log: log))
        defer { queue.close() }
        queue.suspend()
        queue.register(PostNote.self) { PostNote(base: URL(fileURLWithPath: "/"), text: "") }
        #expect(!log.all.contains { $0.contains("no URL") })
        queue.register(NoURLNote.self) { NoURLNote() }
        #expect(log.all.contains { $0.contains("NoURLNote") && $0.contains("no URL") }, "\(log.all)")
    }
}

/// A class whose instances build their URL from an id, and whose template has none.
final class NoURLNote: ConnectionRequest<Data>, @unchecked Sendable {
    override var url: URL? { nil }
}
