import ConnectionKit
import Foundation
import Testing

/// Counts how each request ended (by object), under a lock, and lets a test wait for a number of endings.
final class EndingTally: @unchecked Sendable {
    // Safe: every stored var is only touched while `lock` is held; `group` is thread-safe.
    private let lock = NSLock()
    private var counts: [ObjectIdentifier: Int] = [:]
    private var errors: [ObjectIdentifier: any Error] = [:]
    private let group = DispatchGroup()

    /// Wires `request`'s handlers to count its ending; expect one ending per call.
    func track<Output>(_ request: ConnectionRequest<Output>) {
        group.enter()
        let id = ObjectIdentifier(request)
        request.completionHandler = { [self] _ in record(id, error: nil) }
        request.failureHandler = { [self] error in record(id, error: error) }
    }

    private func record(_ id: ObjectIdentifier, error: (any Error)?) {
        let first: Bool = lock.withLock {
            counts[id, default: 0] += 1
            if let error { errors[id] = error }
            return counts[id] == 1
        }
        // A second ending is recorded in `counts`; leaving the group twice would trap.
        if first { group.leave() }
    }

    /// Waits for every tracked request to end once; records an issue on timeout.
    func wait(seconds: Double = 30, sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        let done = group.wait(timeout: .now() + seconds) == .success
        if !done { Issue.record("requests did not all end within \(seconds) s", sourceLocation: sourceLocation) }
        return done
    }

    func count(_ request: AnyObject) -> Int { lock.withLock { counts[ObjectIdentifier(request), default: 0] } }
    func error(_ request: AnyObject) -> (any Error)? { lock.withLock { errors[ObjectIdentifier(request)] } }
    var allCounts: [Int] { lock.withLock { Array(counts.values) } }
}
