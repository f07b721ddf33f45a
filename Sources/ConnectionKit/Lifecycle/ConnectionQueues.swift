import Dispatch

/// Queues shared by all requests.
enum ConnectionQueues {
    /// Validation and parsing run here, off URLSession's delegate queue (which on Linux serialises
    /// every transfer in the process) and off the callback queue. `.userInitiated`: at `.utility`,
    /// a small request's ending waited up to seconds behind a bulk download on 2 cores (FileBench).
    static let processing = DispatchQueue(
        label: "ConnectionKit.processing", qos: .userInitiated, attributes: .concurrent)
    /// Idle timeouts, backoff waits and deadlines.
    static let timers = DispatchQueue(label: "ConnectionKit.timers", qos: .utility)

    /// A timer on ``timers``, already activated and not yet scheduled (so it does not fire until
    /// `schedule` is called). Activated at once because libdispatch traps when the last reference to
    /// a never-activated source goes away, which happens whenever a cancel races the arming of a timer.
    static func makeTimer() -> any DispatchSourceTimer {
        let timer = DispatchSource.makeTimerSource(queue: timers)
        timer.resume()
        return timer
    }
}
