import ConnectionKitTesting
import Foundation
import Testing

@testable import ConnectionKit

/// Where a run's ending is delivered: `ConnectionClient.Delivery.immediate` skips the crossing to
/// `callbackQueue` where that is safe, and only there; and two endings of one request delivered at once each
/// end their own `value()` callers.
@Suite("Delivery of endings", .timeLimit(.minutes(5)))
struct DeliveryTests {
    @Test("under immediate delivery, value() ends while the callback queue is held: the result hook ran off it")
    func immediateDeliveryDoesNotWaitForTheCallbackQueue() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/value") { _ in .text("immediate") }
        let client = ConnectionClient.ownForTests(label: "delivery-immediate", delivery: .immediate)
        let held = MarkedQueue(label: "delivery-held")
        held.queue.suspend()
        defer { held.queue.resume() }
        let request = WhereHooksRun(server.url("/value"), on: client, marked: held)
        request.callbackQueue = held.queue
        let body = try await within(30, "value() with the callback queue held") { try? await request.value() }
        #expect(body.map { String(decoding: $0, as: UTF8.self) } == "immediate")
        #expect(request.seen == ["result off the callback queue"])
        try await within(30, "the client's shutdown") { await client.shutdown() }
    }

    @Test("under immediate delivery, the value() caller runs its run's ending itself: the result hook runs in its task")
    func theAwaitingTaskRunsTheEnding() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/task") { _ in .text("in the task") }
        let client = ConnectionClient.ownForTests(label: "delivery-task", delivery: .immediate)
        let request = WhereHooksRun(server.url("/task"), on: client, marked: MarkedQueue(label: "delivery-task"))
        let body = try await within(30, "value() in a marked task") {
            await CallerMark.$name.withValue("the caller") { try? await request.value() }
        }
        #expect(body.map { String(decoding: $0, as: UTF8.self) } == "in the task")
        #expect(request.seen == ["result off the callback queue"])
        #expect(request.taskMarks == ["the caller"], "the hook ran in the task that awaited value()")
        try await within(30, "the client's shutdown") { await client.shutdown() }
    }

    @Test("work handed to a value() caller after it took its result runs elsewhere: nothing posted is lost")
    func workAfterTheResultIsNotLost() async throws {
        let inbox = RunInbox()
        let ran = Locked<[String]>([])
        #expect(inbox.post { ran.withLock { $0.append("before the result") } })
        inbox.deliver(.success(1))
        #expect(inbox.post { ran.withLock { $0.append("behind the result") } })
        let handedOn = Locked<[@Sendable () -> Void]>([])
        let result = await inbox.result { work in handedOn.withLock { $0.append(work) } }
        #expect((try? result.get()) as? Int == 1)
        #expect(ran.withLock { $0 } == ["before the result"])
        #expect(!inbox.post { ran.withLock { $0.append("after the close") } }, "refused: its poster runs it elsewhere")
        for work in handedOn.withLock({ $0 }) { work() }
        #expect(ran.withLock { $0 } == ["before the result", "behind the result"])
    }

    @Test(
        "under immediate delivery, a request with a progress handler still ends on its callback queue, after its reports"
    )
    func progressKeepsTheEndingOnTheCallbackQueue() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/progress") { _ in TestResponse(body: .data(Data(repeating: 7, count: 64 * 1024))) }
        let client = ConnectionClient.ownForTests(label: "delivery-progress", delivery: .immediate)
        let marked = MarkedQueue(label: "delivery-progress")
        let request = WhereHooksRun(server.url("/progress"), on: client, marked: marked)
        request.callbackQueue = marked.queue
        request.progressHandler = { [request] _ in request.note("progress") }
        let body = try await within(30, "value() with a progress handler") { try? await request.value() }
        #expect(body?.count == 64 * 1024)
        let seen = request.seen
        #expect(seen.last == "result on the callback queue", "\(seen)")
        #expect(seen.dropLast().allSatisfy { $0 == "progress" } && seen.count >= 2, "\(seen)")
        try await within(30, "the client's shutdown") { await client.shutdown() }
    }

    @Test("under immediate delivery, a cancelled run's failure hook runs on the callback queue, not inside cancel()")
    func aCancelStillEndsOnTheCallbackQueue() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        let gate = OpenableGate()
        defer { gate.open() }
        server.route("/held") { _ in
            gate.pass()
            return .text("late")
        }
        let client = ConnectionClient.ownForTests(label: "delivery-cancel", delivery: .immediate)
        let marked = MarkedQueue(label: "delivery-cancel")
        let request = WhereHooksRun(server.url("/held"), on: client, marked: marked)
        request.callbackQueue = marked.queue
        let ending = Task { try? await request.value() }
        #expect(await server.waitForHits("/held"))
        request.cancel()
        let body = try await within(30, "the cancelled value()") { await ending.value }
        #expect(body == nil)
        #expect(request.seen == ["failure on the callback queue"])
        gate.open()
        try await within(30, "the client's shutdown") { await client.shutdown() }
    }

    @Test(
        "two endings of one request delivered at once, on a concurrent callback queue, each end their own value() callers"
    )
    func overlappingEndingsResolveTheirOwnWaiters() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        let count = Locked(0)
        server.route("/numbered") { _ in .text("\(count.increment())") }
        let request = HeldFirstResult(server.url("/numbered"))
        request.callbackQueue = DispatchQueue(label: "delivery-concurrent", attributes: .concurrent)
        let first = Task { try? await request.value() }
        // The first run's result hook now waits for the second run's, which is delivered beside it.
        let delivering = try await within(30, "the first run's result hook") {
            await withCheckedContinuation { continuation in
                DispatchQueue.global().async {
                    continuation.resume(returning: request.firstIsDelivering.wait(timeout: .now() + 30) == .success)
                }
            }
        }
        #expect(delivering)
        let second = Task { try? await request.value() }
        let bodies = try await within(30, "both value() callers") { (await first.value, await second.value) }
        #expect(bodies.0.map { String(decoding: $0, as: UTF8.self) } == "1")
        #expect(bodies.1.map { String(decoding: $0, as: UTF8.self) } == "2")
    }
}

/// Names the task that awaits `value()`: a hook that reads it runs in that task.
private enum CallerMark {
    @TaskLocal static var name: String?
}

/// A serial queue that knows when code runs on it.
private struct MarkedQueue: Sendable {
    let queue: DispatchQueue
    private let key = DispatchSpecificKey<Bool>()

    init(label: String) {
        queue = DispatchQueue(label: label)
        queue.setSpecific(key: key, value: true)
    }

    var isCurrent: Bool { DispatchQueue.getSpecific(key: key) ?? false }
}

/// A request of a given client that notes where its result and failure hooks ran.
private final class WhereHooksRun: ConnectionRequest<Data>, @unchecked Sendable {
    // Safe: immutable stored properties, and `notes` behind its lock.
    let target: URL
    let owner: ConnectionClient
    let marked: MarkedQueue
    private let notes = Locked<[String]>([])

    init(_ target: URL, on owner: ConnectionClient, marked: MarkedQueue) {
        (self.target, self.owner, self.marked) = (target, owner, marked)
    }

    override var url: URL? { target }
    override var client: ConnectionClient { owner }

    var seen: [String] { notes.withLock { $0 } }

    func note(_ text: String) { notes.withLock { $0.append(text) } }

    /// The ``CallerMark`` of the task each result hook ran in.
    var taskMarks: [String?] { marks.withLock { $0 } }
    private let marks = Locked<[String?]>([])

    override func handleResultObject(_ object: Data) {
        marks.withLock { $0.append(CallerMark.name) }
        note(marked.isCurrent ? "result on the callback queue" : "result off the callback queue")
        super.handleResultObject(object)
    }

    override func handleConnectionError(_ error: any Error) {
        note(marked.isCurrent ? "failure on the callback queue" : "failure off the callback queue")
        super.handleConnectionError(error)
    }
}

/// Holds its first run's result hook until its second run's result was delivered.
private final class HeldFirstResult: FetchData, @unchecked Sendable {
    // Safe: the semaphores are thread-safe.
    let firstIsDelivering = DispatchSemaphore(value: 0)
    private let secondDelivered = DispatchSemaphore(value: 0)

    override func handleResultObject(_ object: Data) {
        if String(decoding: object, as: UTF8.self) == "1" {
            firstIsDelivering.signal()
            _ = secondDelivered.wait(timeout: .now() + 30)
            super.handleResultObject(object)
        } else {
            super.handleResultObject(object)
            secondDelivered.signal()
        }
    }
}
