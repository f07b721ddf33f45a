import Dispatch
import Foundation

/// The queues of ``ConnectionClient/shared`` (a client of its own has its own), and one that every
/// client shares.
enum ConnectionQueues {
    /// Validation and parsing run here, off URLSession's delegate queue (which on Linux serialises
    /// every transfer in the process) and off the callback queue. `.userInitiated`: at `.utility`,
    /// a small request's ending waited up to seconds behind a bulk download on 2 cores (FileBench).
    static let processing = makeProcessing(label: "ConnectionKit.processing")
    /// Shared by every client: closes the descriptors of discarded partial files (``FileSink``), whose
    /// names are already gone: freeing a large file's blocks takes milliseconds, and nobody waits for it.
    static let fileRelease = DispatchQueue(label: "ConnectionKit.fileRelease", qos: .utility)
    /// Idle timeouts, backoff waits and deadlines.
    static let timers = DispatchQueue(label: "ConnectionKit.timers", qos: .utility)

    /// Marks the processing queues, so that an ending knows it runs on one (see ``isProcessing``).
    private static let processingKey = DispatchSpecificKey<Bool>()

    /// A client's processing queue.
    static func makeProcessing(label: String) -> DispatchQueue {
        let queue = DispatchQueue(label: label, qos: .userInitiated, attributes: .concurrent)
        queue.setSpecific(key: processingKey, value: true)
        return queue
    }

    /// Whether the caller runs on a processing queue, or runs processing work for an awaiting `value()`
    /// caller (``runAsProcessing(_:)``): there, and only there, an ending may be delivered without a hop
    /// (``ConnectionClient/Delivery/immediate``); never on a transport's thread, nor inside `start()` or
    /// `cancel()` called from elsewhere.
    static var isProcessing: Bool {
        DispatchQueue.getSpecific(key: processingKey) ?? false || pthread_getspecific(inlineProcessingKey) != nil
    }

    /// Runs `work`, a run's processing work that an awaiting `value()` caller runs itself (``RunInbox``), as
    /// if on a processing queue: its ending may be delivered in place.
    static func runAsProcessing(_ work: () -> Void) {
        let outer = pthread_getspecific(inlineProcessingKey)
        pthread_setspecific(inlineProcessingKey, UnsafeRawPointer(bitPattern: 1))
        defer { pthread_setspecific(inlineProcessingKey, outer) }
        work()
    }

    /// Set on a thread while it runs processing work for an awaiting caller.
    private static let inlineProcessingKey: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

}
