import Dispatch
import Foundation

/// Every idle timeout, retry backoff and deadline of every request, on one dispatch timer.
///
/// A `DispatchSourceTimer` per attempt cost a `write(2)` to wake libdispatch's manager thread each
/// time one was armed: 16 % of the CPU of a small GET on libcurl (docs/benchmarks.md). Here the
/// deadlines sit in one min-heap under one lock; arming and cancelling are O(log n) and make no
/// system call unless the new deadline is earlier than the moment the one source is already set
/// for. Idle timeouts are all the same length, so a new one is almost never the earliest.
///
/// Timing: a timer never fires before its deadline (the due check compares with the clock, and a
/// source that woke early is set again), and fires at most about ``leeway`` late on an idle machine,
/// plus whatever the queue's scheduling adds under load, as with any dispatch timer. Handlers run
/// one at a time on the service's queue, in deadline order (arming order for equal deadlines).
final class SharedTimers: @unchecked Sendable {
    /// The service of ``ConnectionClient/shared``, on ``ConnectionQueues/timers``.
    static let shared = SharedTimers(queue: ConnectionQueues.timers)

    /// How late the source may wake, which lets the kernel coalesce it with other wake-ups.
    static let leeway: DispatchTimeInterval = .milliseconds(5)

    // Safe: every stored property below `lock` is only touched while it is held, and so are the
    // heap fields of every `SharedTimer` of this service.
    private let lock = NSLock()
    private var heap: [SharedTimer] = []
    private var armings: UInt64 = 0
    /// The uptime the source is set for, or `UInt64.max` when it is not set.
    private var sourceFiresAt = UInt64.max
    private var sourceSettings = 0
    private let source: any DispatchSourceTimer

    /// A service whose handlers run on `queue`.
    init(queue: DispatchQueue) {
        source = DispatchSource.makeTimerSource(queue: queue)
        source.setEventHandler { [weak self] in self?.fireDue() }
        source.resume()
    }

    deinit {
        source.cancel()
    }

    /// A timer that is not armed yet: `handler` runs on the service's queue each time it fires and
    /// gets the timer, so that it can arm it again without capturing it.
    func makeTimer(handler: @escaping @Sendable (SharedTimer) -> Void) -> SharedTimer {
        SharedTimer(service: self, handler: handler)
    }

    /// How many timers are armed (for tests).
    var armedCount: Int { locked { heap.count } }

    /// How many times the source was set, i.e. system calls made (for tests).
    var sourceSettingCount: Int { locked { sourceSettings } }

    // MARK: - Arming

    fileprivate func arm(_ timer: SharedTimer, at uptime: UInt64) {
        locked {
            guard timer.handler != nil else { return }
            armings &+= 1
            timer.deadline = uptime
            timer.order = armings
            timer.generation &+= 1
            if timer.heapIndex >= 0 {
                // A later deadline sinks, an earlier one rises; one of the two does nothing.
                siftUp(siftDown(timer.heapIndex))
            } else {
                timer.heapIndex = heap.count
                heap.append(timer)
                siftUp(heap.count - 1)
            }
            if uptime < sourceFiresAt { setSource(to: uptime) }
        }
    }

    fileprivate func cancel(_ timer: SharedTimer) {
        let handler: ((SharedTimer) -> Void)? = locked {
            if timer.heapIndex >= 0 { remove(at: timer.heapIndex) }
            defer { timer.handler = nil }
            return timer.handler
        }
        // Released outside the lock: the handler may hold the last reference to something whose
        // deinit takes locks of its own.
        _ = handler
    }

    private func locked<Result>(_ body: () -> Result) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return body()
    }

    // MARK: - Firing

    private func fireDue() {
        let now = DispatchTime.now().uptimeNanoseconds
        let due: [(timer: SharedTimer, generation: UInt64)] = locked {
            sourceFiresAt = .max
            var due: [(SharedTimer, UInt64)] = []
            while let first = heap.first, first.deadline <= now {
                remove(at: 0)
                due.append((first, first.generation))
            }
            if let first = heap.first { setSource(to: first.deadline) }
            return due
        }
        for (timer, generation) in due {
            // A timer cancelled or armed again since it was taken off the heap does not fire now.
            let handler = locked {
                timer.generation == generation && timer.heapIndex < 0 ? timer.handler : nil
            }
            handler?(timer)
        }
    }

    /// Sets the one source for `uptime`. The only system call of the service.
    private func setSource(to uptime: UInt64) {
        sourceFiresAt = uptime
        sourceSettings += 1
        source.schedule(deadline: DispatchTime(uptimeNanoseconds: uptime), leeway: Self.leeway)
    }

    // MARK: - Heap (ordered by deadline, then by arming)

    private func precedes(_ a: SharedTimer, _ b: SharedTimer) -> Bool {
        a.deadline != b.deadline ? a.deadline < b.deadline : a.order < b.order
    }

    private func remove(at index: Int) {
        let removed = heap[index]
        let last = heap.removeLast()
        removed.heapIndex = -1
        guard index < heap.count else { return }
        heap[index] = last
        last.heapIndex = index
        siftUp(siftDown(index))
    }

    private func swapAt(_ i: Int, _ j: Int) {
        heap.swapAt(i, j)
        heap[i].heapIndex = i
        heap[j].heapIndex = j
    }

    @discardableResult
    private func siftDown(_ start: Int) -> Int {
        var index = start
        while true {
            let left = 2 * index + 1
            let right = left + 1
            var least = index
            if left < heap.count, precedes(heap[left], heap[least]) { least = left }
            if right < heap.count, precedes(heap[right], heap[least]) { least = right }
            if least == index { return index }
            swapAt(index, least)
            index = least
        }
    }

    private func siftUp(_ start: Int) {
        var index = start
        while index > 0 {
            let parent = (index - 1) / 2
            guard precedes(heap[index], heap[parent]) else { return }
            swapAt(index, parent)
            index = parent
        }
    }
}

/// One timer of ``SharedTimers``: what the request's state machine holds for an idle timeout, a
/// retry backoff or a deadline. Like a dispatch timer it fires once per arming, can be armed again
/// (the new deadline replaces the old one), and once cancelled never fires again.
final class SharedTimer: @unchecked Sendable {
    // Safe: the fields below `service` are only touched under the service's lock.
    private let service: SharedTimers
    fileprivate var handler: (@Sendable (SharedTimer) -> Void)?
    fileprivate var deadline: UInt64 = 0
    fileprivate var order: UInt64 = 0
    fileprivate var generation: UInt64 = 0
    /// Where the timer is in the service's heap, or -1 when it is not armed.
    fileprivate var heapIndex = -1

    fileprivate init(service: SharedTimers, handler: @escaping @Sendable (SharedTimer) -> Void) {
        self.service = service
        self.handler = handler
    }

    /// Arms the timer for `deadline`, replacing any earlier arming. Does nothing once cancelled.
    func schedule(deadline: DispatchTime) {
        service.arm(self, at: deadline.uptimeNanoseconds)
    }

    /// Disarms the timer for good and releases its handler. Safe from any thread, more than once.
    func cancel() {
        service.cancel(self)
    }
}
