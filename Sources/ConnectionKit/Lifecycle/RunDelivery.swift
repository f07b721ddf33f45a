import Dispatch

/// Where one run's user-visible events (progress reports, streamed elements, the ending with its result
/// hooks and handlers) and its processing work go, chosen when the run starts.
///
/// A run started with `start()` has none: its events go to the request's `callbackQueue` (as the
/// original's), its processing work to its client's processing queue. A run that a task awaits never
/// waits on `callbackQueue`, so that `value()` returns wherever the caller's main queue is not served.
enum RunDelivery: Sendable {
    /// A run started by ``ConnectionRequest/value()``: everything runs in the awaiting task (``RunInbox``).
    case awaitingTask(RunInbox)
    /// A run started by ``StreamingConnectionRequest/elements()``: the events go, in order, to a serial queue
    /// of the run's own; the consumer's task takes the elements from there.
    case ownQueue(DispatchQueue)

    /// A serial queue for the events of one `elements()` run.
    static func ownQueue() -> RunDelivery {
        .ownQueue(DispatchQueue(label: "ConnectionKit.elements", qos: .userInitiated))
    }
}
