import ConnectionKitTesting
import Foundation
import Testing

@testable import ConnectionKit

/// Where a run's ending is delivered: a run awaited with `value()` ends in the awaiting task, its progress
/// reports and hooks too, whatever its `callbackQueue` is doing; a run started with `start()` keeps its
/// `callbackQueue`, which `ConnectionClient.Delivery.immediate` skips only where that is safe; and two endings
/// of one request delivered at once each end their own `value()` callers.
@Suite("Delivery of endings", .offThePool, .timeLimit(.minutes(5)))
struct DeliveryTests {
    @Test("under immediate delivery, a start() run ends while its callback queue is held: the result hook ran off it")
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
        let body = try await within(30, "the started run's ending with the callback queue held") {
            await withCheckedContinuation { (continuation: CheckedContinuation<Data, Never>) in
                request.completionHandler = { continuation.resume(returning: $0) }
                request.start()
            }
        }
        #expect(String(decoding: body, as: UTF8.self) == "immediate")
        #expect(request.seen == ["result off the callback queue"])
        try await within(30, "the client's shutdown") { await client.shutdown() }
    }

    @Test("under immediate delivery, a cancelled start() run ends on the callback queue, not inside cancel()")
    func aCancelOfAStartedRunStillEndsOnTheCallbackQueue() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        let gate = OpenableGate()
        defer { gate.open() }
        server.routeHeld("/held", until: gate)
        let client = ConnectionClient.ownForTests(label: "delivery-cancel-started", delivery: .immediate)
        let marked = MarkedQueue(label: "delivery-cancel-started")
        let request = WhereHooksRun(server.url("/held"), on: client, marked: marked)
        request.callbackQueue = marked.queue
        let failed = Task {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                request.failureHandler = { _ in continuation.resume() }
                request.start()
            }
        }
        #expect(await server.waitForHits("/held"))
        request.cancel()
        try await within(30, "the failure handler") { await failed.value }
        #expect(request.seen == ["failure on the callback queue"])
        gate.open()
        try await within(30, "the client's shutdown") { await client.shutdown() }
    }

    @Test("the value() caller runs its run's processing and ending itself: validation and the result hook in its task")
    func theAwaitingTaskRunsTheEnding() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/task") { _ in .text("in the task") }
        let request = WhereHooksRun(server.url("/task"), on: .shared, marked: MarkedQueue(label: "delivery-task"))
        let body = try await within(30, "value() in a marked task") {
            await CallerMark.$name.withValue("the caller") { try? await request.value() }
        }
        #expect(body.map { String(decoding: $0, as: UTF8.self) } == "in the task")
        #expect(request.seen == ["result off the callback queue"])
        #expect(request.validateMarks == ["the caller"], "validation ran in the task that awaited value()")
        #expect(request.taskMarks == ["the caller"], "the hook ran in the task that awaited value()")
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

    @Test("a value() run's progress reports and result hook run in the awaiting task, with its callback queue held")
    func progressAndResultRunInTheAwaitingTask() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/progress") { _ in TestResponse(body: .data(Data(repeating: 7, count: 64 * 1024))) }
        let marked = MarkedQueue(label: "delivery-progress")
        marked.queue.suspend()
        defer { marked.queue.resume() }
        let request = WhereHooksRun(server.url("/progress"), on: .shared, marked: marked)
        request.callbackQueue = marked.queue
        request.progressHandler = { [request] _ in
            request.note(CallerMark.name == "the caller" ? "progress in the task" : "progress elsewhere")
        }
        let body = try await within(30, "value() with a progress handler and its callback queue held") {
            await CallerMark.$name.withValue("the caller") { try? await request.value() }
        }
        #expect(body?.count == 64 * 1024)
        let seen = request.seen
        #expect(seen.last == "result off the callback queue", "\(seen)")
        #expect(seen.dropLast().allSatisfy { $0 == "progress in the task" } && seen.count >= 2, "\(seen)")
        #expect(request.taskMarks == ["the caller"], "the result hook ran in the task that awaited value()")
    }

    @Test("a start() run with a progress handler on an immediate client still ends on its callback queue, after them")
    func startedRunsKeepTheirCallbackQueue() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/progress") { _ in TestResponse(body: .data(Data(repeating: 7, count: 64 * 1024))) }
        let client = ConnectionClient.ownForTests(label: "delivery-started", delivery: .immediate)
        let marked = MarkedQueue(label: "delivery-started")
        let request = WhereHooksRun(server.url("/progress"), on: client, marked: marked)
        request.callbackQueue = marked.queue
        request.progressHandler = { [request] _ in request.note("progress") }
        try await within(30, "the started run's ending") {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                request.completionHandler = { _ in continuation.resume() }
                request.start()
            }
        }
        let seen = request.seen
        #expect(seen.last == "result on the callback queue", "\(seen)")
        #expect(seen.dropLast().allSatisfy { $0 == "progress" } && seen.count >= 2, "\(seen)")
        try await within(30, "the client's shutdown") { await client.shutdown() }
    }

    @Test("a value() run cancelled from another thread runs its failure hook in the awaiting task, not inside cancel()")
    func aCancelEndsInTheAwaitingTask() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        let gate = OpenableGate()
        defer { gate.open() }
        server.routeHeld("/held", until: gate)
        let marked = MarkedQueue(label: "delivery-cancel")
        marked.queue.suspend()
        defer { marked.queue.resume() }
        let request = WhereHooksRun(server.url("/held"), on: .shared, marked: marked)
        request.callbackQueue = marked.queue
        let ending = Task { await CallerMark.$name.withValue("the caller") { try? await request.value() } }
        #expect(await server.waitForHits("/held"))
        DispatchQueue.global().sync { request.cancel() }
        let body = try await within(30, "the cancelled value()") { await ending.value }
        #expect(body == nil)
        #expect(request.seen == ["failure off the callback queue"])
        #expect(request.failureMarks == ["the caller"], "the failure hook ran in the awaiting task, not in cancel()")
        gate.open()
    }

    @Test("when a value() run cancelled during its backoff returns, nothing of it runs later: no attempt, no hook")
    func nothingOutlivesTheAwaitingTask() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/busy") { _ in .status(503) }
        let request = RetriedAfterABackoff(server.url("/busy"))
        let hooks = Locked(0)
        request.failureHandler = { _ in hooks.withLock { $0 += 1 } }
        // The cancel comes from a thread of its own as the 1 s backoff begins, whatever the test's own task
        // is waiting behind.
        let ending = Task { try? await request.value() }
        _ = try await within(30, "the cancelled value()") { await ending.value }
        let handledAtReturn = hooks.withLock { $0 }
        // A settle window longer than the backoff: a retry timer or a hook left behind would show here.
        try await Task.sleep(for: .milliseconds(1_300))
        #expect(handledAtReturn == 1, "the failure handler ran before value() returned")
        #expect(hooks.withLock { $0 } == 1)
        #expect(server.hits("/busy") == 1, "no attempt after value() returned")
        #expect(request.state == .cancelled)
    }

    @Test(
        "two endings of one request delivered at once, on a concurrent callback queue, each end the value() callers that joined them"
    )
    func overlappingEndingsResolveTheirOwnWaiters() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        let count = Locked(0)
        let gates = [OpenableGate(), OpenableGate()]
        defer { gates.forEach { $0.open() } }
        server.route("/numbered") { _ in
            let number = count.increment()
            // A hit beyond the two runs' is a failure the bodies' checks show, not an index out of range.
            guard number <= gates.count else { return .status(500, body: "unexpected hit \(number)") }
            gates[number - 1].pass()
            return .text("\(number)")
        }
        let request = HeldFirstResult(server.url("/numbered"))
        request.callbackQueue = DispatchQueue(label: "delivery-concurrent", attributes: .concurrent)
        // Each run is started with start() and joined by a value() caller, whose result is then resolved by
        // the ending delivered on the callback queue (a dispatch thread, so the held hook blocks no task).
        request.start()
        let first = Task { try? await request.value() }
        try await joined(request, waiters: 1)
        gates[0].open()
        // The first run's result hook now waits for the second run's, which is delivered beside it.
        let delivering = try await within(30, "the first run's result hook") {
            await request.firstIsDelivering.signalled(within: 30)
        }
        #expect(delivering)
        request.start()
        let second = Task { try? await request.value() }
        try await joined(request, waiters: 1)
        gates[1].open()
        let bodies = try await within(30, "both value() callers") { (await first.value, await second.value) }
        #expect(bodies.0.map { String(decoding: $0, as: UTF8.self) } == "1")
        #expect(bodies.1.map { String(decoding: $0, as: UTF8.self) } == "2")
    }

    /// Returns once `request`'s current run has `waiters` value() callers.
    private func joined(_ request: AnyConnectionRequest, waiters: Int) async throws {
        try #require(await eventually(timeout: 30) { request.storage.withLock { $0.waiters.count } >= waiters })
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

    /// The ``CallerMark`` of the task each validation ran in.
    var validateMarks: [String?] { validations.withLock { $0 } }
    private let validations = Locked<[String?]>([])

    override func validate(_ response: ConnectionResponse, data: Data?) throws {
        validations.withLock { $0.append(CallerMark.name) }
        try super.validate(response, data: data)
    }

    /// The ``CallerMark`` of the task each failure hook ran in.
    var failureMarks: [String?] { failures.withLock { $0 } }
    private let failures = Locked<[String?]>([])

    override func handleConnectionError(_ error: any Error) {
        failures.withLock { $0.append(CallerMark.name) }
        note(marked.isCurrent ? "failure on the callback queue" : "failure off the callback queue")
        super.handleConnectionError(error)
    }
}

/// A GET retried after a 300 ms backoff, cancelled 50 ms into its first backoff.
private final class RetriedAfterABackoff: FetchData, @unchecked Sendable {
    override var retryPolicy: RetryPolicy { RetryPolicy(maximumAttempts: 3, initialBackoff: 1, jitter: 0) }

    override func retryDecision(for error: ConnectionError, attempt: Int, response: ConnectionResponse?)
        -> RetryDecision
    {
        let decision = super.retryDecision(for: error, attempt: attempt, response: response)
        // A thread of its own: a Dispatch worker could wait past the backoff on a loaded machine.
        if attempt == 1 { Thread.detachNewThread { self.cancel() } }
        return decision
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
