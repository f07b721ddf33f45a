import Dispatch

/// The queues of ``ConnectionClient/shared`` (a client of its own has its own), and one that every
/// client shares.
enum ConnectionQueues {
    /// Validation and parsing run here, off URLSession's delegate queue (which on Linux serialises
    /// every transfer in the process) and off the callback queue. `.userInitiated`: at `.utility`,
    /// a small request's ending waited up to seconds behind a bulk download on 2 cores (FileBench).
    static let processing = DispatchQueue(
        label: "ConnectionKit.processing", qos: .userInitiated, attributes: .concurrent)
    /// Shared by every client: closes the descriptors of discarded partial files (``FileSink``), whose
    /// names are already gone: freeing a large file's blocks takes milliseconds, and nobody waits for it.
    static let fileRelease = DispatchQueue(label: "ConnectionKit.fileRelease", qos: .utility)
    /// Idle timeouts, backoff waits and deadlines.
    static let timers = DispatchQueue(label: "ConnectionKit.timers", qos: .utility)
}
