/// One event of a `text/event-stream` body, as the WHATWG EventSource specification dispatches it.
public struct ServerSentEvent: Sendable, Hashable {
    /// The event type: the last `event` field of the event, or `"message"` when it had none.
    public var type: String
    /// The `data` fields joined with LF (the trailing LF removed).
    public var data: String
    /// The last event ID when the event was dispatched (the most recent `id` field, possibly from an
    /// earlier event); empty when none was set.
    public var lastEventID: String

    /// Creates an event.
    public init(type: String = "message", data: String, lastEventID: String = "") {
        self.type = type
        self.data = data
        self.lastEventID = lastEventID
    }
}
