import ConnectionKit
import Foundation
import Testing

/// Records every ending (completion or failure call) of the requests it tracks: the one recorder of
/// endings in these tests.
///
/// "Exactly once" cannot be seen at one instant: a second ending may come from a timer or a late
/// transfer event a few milliseconds after the first. So every check here waits for the expected
/// endings, drains the callback queues, then watches for a further ending for `settle` seconds
/// (longer than the longest timer the scenario leaves armed), drains again, and only then counts,
/// recording an issue for any request that did not end exactly as often as it was tracked.
final class EndingRecorder: @unchecked Sendable {
    // Safe: every stored var is only touched while `condition` is locked; the rest is immutable.
    private struct Entry {
        /// Weak: a test may rely on the registry alone keeping a request alive.
        weak var request: AnyObject?
        var expected = 0
        var results: [Result<any Sendable, any Error>] = []
        var dates: [Date] = []
    }

    private let condition = NSCondition()
    /// By tracking order. Not keyed by object: an ended request that nobody keeps is freed, and the next
    /// one may get its address.
    private var entries: [Entry] = []
    /// The entry of each live tracked request.
    private var entryIndex: [ObjectIdentifier: Int] = [:]
    private var queues: [ObjectIdentifier: DispatchQueue] = [:]
    private var endingCount = 0

    /// How long a check watches for late endings after the expected ones arrived.
    let settle: TimeInterval

    /// The window when the scenario arms no timer of its own: longer than a loaded machine takes to
    /// deliver an ending that was already on its way.
    static let defaultSettle: TimeInterval = 0.3

    init(settle: TimeInterval = EndingRecorder.defaultSettle) {
        self.settle = settle
    }

    /// Installs handlers on `request` that record its endings, on `queue` if given (otherwise on the
    /// request's own callback queue, which the checks then drain). Each call expects one more ending.
    /// `onFirstEnding` runs after the first ending of this request was recorded (e.g. to start another).
    func track<Output>(
        _ request: ConnectionRequest<Output>, queue: DispatchQueue? = nil,
        onFirstEnding: (@Sendable () -> Void)? = nil
    ) {
        if let queue { request.callbackQueue = queue }
        let callbackQueue = request.callbackQueue
        let index: Int = condition.withLock {
            let index: Int
            if let known = entryIndex[ObjectIdentifier(request)], entries[known].request === request {
                index = known
            } else {
                index = entries.count
                entries.append(Entry(request: request))
                entryIndex[ObjectIdentifier(request)] = index
            }
            entries[index].expected += 1
            queues[ObjectIdentifier(callbackQueue)] = callbackQueue
            return index
        }
        request.completionHandler = { [self] output in record(index, .success(output), onFirstEnding) }
        request.failureHandler = { [self] error in record(index, .failure(error), onFirstEnding) }
    }

    private func record(
        _ index: Int, _ result: Result<any Sendable, any Error>, _ onFirstEnding: (@Sendable () -> Void)?
    ) {
        let first: Bool = condition.withLock {
            entries[index].results.append(result)
            entries[index].dates.append(Date())
            endingCount += 1
            condition.broadcast()
            return entries[index].results.count == 1
        }
        if first { onFirstEnding?() }
    }

    /// The entry of `request` (which the caller keeps alive), if it was tracked.
    private func entry(_ request: AnyObject) -> Entry? {
        condition.withLock {
            guard let index = entryIndex[ObjectIdentifier(request)], entries[index].request === request else {
                return nil
            }
            return entries[index]
        }
    }

    // MARK: - Checks

    /// Waits until every tracked request ended as often as it was tracked (recording an issue after
    /// `seconds`), then settles and checks that none ended more often. Returns whether all ended.
    ///
    /// Records the issues here, in the test's task (an issue recorded on another thread belongs to no
    /// test). The wait blocks a thread of its own: not one of Swift's cooperative pool, nor a Dispatch
    /// worker (on Linux libdispatch does not see a blocked worker, so a few such waits starve the callback
    /// queues they wait for). There is deliberately no blocking variant: a test function that blocked its
    /// pool thread here for seconds stalled the whole parallel run (see ``onOwnThread(_:)``).
    @discardableResult
    func ended(within seconds: TimeInterval = 30, sourceLocation: SourceLocation = #_sourceLocation) async -> Bool {
        let (arrived, problems) = await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(returning: self.waitAndCheck(seconds: seconds * testTimeScale))
            }
        }
        for problem in problems { Issue.record(Comment(rawValue: problem), sourceLocation: sourceLocation) }
        return arrived
    }

    private var allExpectedArrived: Bool { entries.allSatisfy { $0.results.count >= $0.expected } }

    /// Blocks until the expected endings arrived, drains the callback queues, watches for a further ending for
    /// `settle` seconds, drains again, and returns whether all arrived and what went wrong.
    private func waitAndCheck(seconds: TimeInterval) -> (arrived: Bool, problems: [String]) {
        var problems: [String] = []
        let deadline = Date().addingTimeInterval(seconds)
        let arrived: Bool = condition.withLock {
            while !allExpectedArrived {
                guard condition.wait(until: deadline) else { return allExpectedArrived }
            }
            return true
        }
        if !arrived {
            let missing = condition.withLock { entries.filter { $0.results.count < $0.expected }.count }
            problems.append("\(missing) request(s) did not end within \(seconds) s")
        }
        drainQueues()
        let settleDeadline = Date().addingTimeInterval(settle)
        condition.withLock {
            let seen = endingCount
            // Returns early when a further ending arrives: that is already the failure.
            while endingCount == seen, condition.wait(until: settleDeadline) {}
        }
        drainQueues()
        let extra: [String] = condition.withLock {
            entries.enumerated().compactMap { index, entry in
                guard entry.results.count > entry.expected else { return nil }
                return "#\(index) ended \(entry.results.count) times (expected \(entry.expected))"
            }
        }
        if !extra.isEmpty {
            problems.append(
                "\(extra.count) request(s) ended more often than started: \(extra.prefix(5).joined(separator: ", "))")
        }
        return (arrived, problems)
    }

    /// Returns once every block queued on the callback queues before the call has run (a barrier also
    /// waits out a concurrent queue's blocks).
    private func drainQueues() {
        let all = condition.withLock { Array(queues.values) }
        for queue in all { queue.sync(flags: .barrier) {} }
    }

    // MARK: - What was recorded

    /// How many endings `request` had so far.
    func count(_ request: AnyObject) -> Int { entry(request)?.results.count ?? 0 }

    /// The ending counts of every tracked request, in the order they were first tracked.
    var allCounts: [Int] { condition.withLock { entries.map(\.results.count) } }

    /// The first ending of every tracked request that ended, in the order they were first tracked.
    var firstResults: [Result<any Sendable, any Error>] { condition.withLock { entries.compactMap(\.results.first) } }

    /// The endings of `request`, in order.
    func results(_ request: AnyObject) -> [Result<any Sendable, any Error>] { entry(request)?.results ?? [] }

    /// When each ending of `request` was recorded.
    func dates(_ request: AnyObject) -> [Date] { entry(request)?.dates ?? [] }

    /// The first ending's error, if it was a failure.
    func error(_ request: AnyObject) -> (any Error)? {
        guard case .failure(let error)? = results(request).first else { return nil }
        return error
    }

    /// The first ending of `request`, typed.
    func first<Output>(of request: ConnectionRequest<Output>) -> Result<Output, any Error>? {
        switch results(request).first {
        case .success(let output)?:
            guard let output = output as? Output else { return .failure(UnexpectedOutcome()) }
            return .success(output)
        case .failure(let error)?:
            return .failure(error)
        case nil:
            return nil
        }
    }
}
