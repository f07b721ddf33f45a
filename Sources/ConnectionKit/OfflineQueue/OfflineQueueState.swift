import Foundation

/// Everything mutable about an ``OfflineQueue``, kept behind its one lock.
struct OfflineQueueState {
    var pending: [QueuedOperation] = []
    var deadLetters: [DeadLetter] = []
    /// Factories by class name, from `register`.
    var factories: [String: @Sendable () -> AnyConnectionRequest] = [:]
    /// Requests enqueued by this process, by class name: the template when no factory is registered.
    var liveTemplates: [String: AnyConnectionRequest] = [:]
    /// Enqueues under way (between registering their request as template and joining `pending`), by class
    /// name: while one is, the template is kept even when no operation of the class is pending.
    var enqueuesUnderWay: [String: Int] = [:]
    /// How often each unregistered class name was met at the head of the queue (logged at the second time,
    /// so that opening a queue and then registering does not log).
    var unregisteredMisses: [String: Int] = [:]
    /// The requests sending operations of the window, by operation.
    var inFlight: [UUID: QueuedOperationRequest] = [:]
    /// Whether an attempt may start, and the wait before the next one.
    var delivery = OfflineDeliveryMachine<SharedTimer>()
    /// Whether the last attempt reached the server; `nil` before the first.
    var lastAttemptReachedServer: Bool?
    /// What the app said with `setReachable(_:)`; `nil` when it never did.
    var reportedReachable: Bool?
    /// Failed attempts in a row, for the backoff.
    var consecutiveFailures = 0
    var deliveredHandler: (@Sendable (QueuedOperation, Data) -> Void)?
    var deadLetterHandler: (@Sendable (DeadLetter) -> Void)?
    var failedAttemptHandler: (@Sendable (FailedAttempt) -> Void)?

    /// Removes `operation` from the pending ones, wherever it is, and forgets a request kept as template once
    /// no operation of its class is left or on its way. Returns whether it was pending.
    mutating func removePending(_ operation: QueuedOperation) -> Bool {
        guard let index = pending.firstIndex(where: { $0.id == operation.id }) else { return false }
        pending.remove(at: index)
        forgetTemplateIfUnused(operation.typeName)
        return true
    }

    /// An enqueue of `request` begins: it becomes its class's template unless there is one, and stays one
    /// until ``endEnqueue(of:)`` (the worker may attempt the operation the moment it is committed, and an
    /// operation of the class resolved meanwhile must not take the template away).
    mutating func beginEnqueue(of request: AnyConnectionRequest) {
        let typeName = request.typeName
        enqueuesUnderWay[typeName, default: 0] += 1
        if liveTemplates[typeName] == nil { liveTemplates[typeName] = request }
    }

    /// The enqueue that ``beginEnqueue(of:)`` began ended (committed to `pending`, or failed).
    mutating func endEnqueue(of typeName: String) {
        let left = enqueuesUnderWay[typeName, default: 1] - 1
        enqueuesUnderWay[typeName] = left > 0 ? left : nil
        forgetTemplateIfUnused(typeName)
    }

    /// Forgets the template of `typeName` when no operation of the class is pending or being enqueued.
    private mutating func forgetTemplateIfUnused(_ typeName: String) {
        guard enqueuesUnderWay[typeName] == nil, !pending.contains(where: { $0.typeName == typeName }) else { return }
        liveTemplates[typeName] = nil
    }
}
