#if canImport(CCurlShim)
    import Foundation
    import Synchronization

    /// The events of a transfer whose body is saved to a file, moved off the loop thread onto a serial
    /// queue of the transfer's own: a slow disk (or any sink that cannot keep up) then holds up that
    /// transfer only, never the loop and the other transfers on it, and the network and the disk work
    /// at the same time.
    ///
    /// At most ``bound`` body bytes wait in the queue. Beyond it the loop pauses the transfer's socket
    /// (`CURL_WRITEFUNC_PAUSE`: the server's data waits in the kernel's socket buffers, TCP backpressure);
    /// the delivery that drains the queue to half the bound asks the loop to resume it.
    final class CurlBodyQueue: Sendable {
        /// Body bytes that may wait for the sink, per transfer: enough to keep a disk busy while the loop
        /// is paused, and small beside a process's footprint. Twice as much bought no speed on a fast disk and
        /// raised a saved gigabyte's peak memory by the difference (docs/benchmarks.md).
        static let bound = 2 << 20

        /// How many times this queue, full, paused its transfer (for tests: a figure of this transfer's
        /// alone, which no transfer running beside it moves).
        let pauses = Atomic<Int>(0)
        /// The most body bytes that waited in this queue at once (for tests).
        let peakWaitingBytes = Atomic<Int>(0)

        /// The buffers the transfer gathers its body's pieces in, reused once written.
        let buffers = CurlBodyBuffers()

        private let queue = DispatchQueue(label: "ConnectionKit.libcurl.body", target: .global())
        private let waiting = Atomic<Int>(0)
        /// Set by the loop when it paused the transfer for want of room; taken by the delivery that
        /// makes room, which then asks for the resume.
        private let pausedForRoom = Atomic<Bool>(false)

        /// On the loop thread, before a chunk is taken: whether there is room for it beside the `gathered`
        /// bytes the transfer holds for this queue and has not queued yet (they count against the bound as if
        /// queued). `false` means that the transfer pauses, and a later drain posts its resume. (The flag is
        /// set before the second look, so a drain that happens in between either is seen or sees the flag.)
        func hasRoom(besides gathered: Int) -> Bool {
            guard waiting.load(ordering: .sequentiallyConsistent) + gathered >= Self.bound else { return true }
            pausedForRoom.store(true, ordering: .sequentiallyConsistent)
            guard waiting.load(ordering: .sequentiallyConsistent) <= Self.bound / 2 else {
                pauses.add(1, ordering: .relaxed)
                return false
            }
            pausedForRoom.store(false, ordering: .sequentiallyConsistent)
            return true
        }

        /// Queues a chunk of `count` body bytes; `deliver` hands it to the receiver. `resume` runs (on
        /// the queue) when this delivery made room for a transfer paused by ``hasRoom(besides:)``.
        func enqueue(
            bytes count: Int, _ deliver: @escaping @Sendable () -> Void, resume: @escaping @Sendable () -> Void
        ) {
            let total = waiting.add(count, ordering: .sequentiallyConsistent).newValue
            peakWaitingBytes.max(total, ordering: .relaxed)
            queue.async { [self] in
                deliver()
                let left = waiting.subtract(count, ordering: .sequentiallyConsistent).newValue
                if left <= Self.bound / 2, pausedForRoom.exchange(false, ordering: .sequentiallyConsistent) {
                    resume()
                }
            }
        }

        /// Queues an event that carries no body bytes (the response, upload progress, the completion).
        func enqueue(_ deliver: @escaping @Sendable () -> Void) {
            queue.async(execute: deliver)
        }

        /// The body bytes waiting in this queue now (for tests).
        var waitingBytes: Int { waiting.load(ordering: .relaxed) }
    }

    /// The buffers of one transfer's saved body: the loop thread gathers the pieces of an iteration in one
    /// (``CurlTransfer``), the body queue writes it, and its `Data` hands it back when freed. A buffer used
    /// again is already mapped and in the cache, where a fresh one per chunk has the kernel zero new pages
    /// and the allocator grow and trim its heap all through a download.
    final class CurlBodyBuffers: @unchecked Sendable {
        // Safe: `free` is only read or written while `lock` is held; a buffer is owned by one side at a time
        // (the loop thread gathering, then the `Data` that carries it).
        /// The size of each buffer: libcurl's receive buffer for a saved body, so one read fits.
        static let capacity = CurlTransfer.savedBodyReceiveBuffer
        /// The most free buffers kept for reuse; more are freed as they come back.
        static let keptFree = 4

        private let lock = NSLock()
        private var free: [UnsafeMutableRawPointer] = []
        private var counts = (takes: 0, allocations: 0)

        /// A buffer of ``capacity`` bytes, reused if one is free.
        func take() -> UnsafeMutableRawPointer {
            let reused = lock.withLock {
                let buffer = free.popLast()
                counts.takes += 1
                if buffer == nil { counts.allocations += 1 }
                return buffer
            }
            return reused ?? .allocate(byteCount: Self.capacity, alignment: 16)
        }

        /// Takes `buffer` back (from the `Data` that carried it, on whichever thread freed that).
        func give(_ buffer: UnsafeMutableRawPointer) {
            let kept = lock.withLock {
                guard free.count < Self.keptFree else { return false }
                free.append(buffer)
                return true
            }
            if !kept { buffer.deallocate() }
        }

        /// How many buffers wait for reuse (for tests).
        var freeCount: Int { lock.withLock { free.count } }

        /// How many buffers were handed out, and how many of those were newly allocated, not reused (for
        /// tests).
        var handedOut: (takes: Int, allocations: Int) { lock.withLock { counts } }

        deinit {
            free.forEach { $0.deallocate() }
        }
    }
#endif
