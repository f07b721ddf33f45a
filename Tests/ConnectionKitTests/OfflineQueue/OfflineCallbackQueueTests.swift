import ConnectionKitTesting
import Foundation
import Testing

@testable import ConnectionKit

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The system's file calls, except that a sync (`fdatasync`) waits for the test once armed: the journal's
/// group commit of a request that failed offline is held at the exact moment the test looks at.
final class HeldSyncFiles: OfflineFileOperations {
    private let system = POSIXOfflineFileOperations()
    /// Whether the next data sync is held (armed by the test, disarmed by the sync it holds).
    let armed = Locked(false)
    /// Signalled when a held sync begins.
    let syncing = DispatchSemaphore(value: 0)
    /// Lets the held sync go on.
    let release = DispatchSemaphore(value: 0)
    /// When set, a data sync fails with this `errno` (a disk that reports a write error).
    let failingSyncs = Locked<Int32?>(nil)

    func syncData(_ descriptor: Int32) -> Bool {
        if let failure = failingSyncs.withLock({ $0 }) {
            errno = failure
            return false
        }
        let holds = armed.withLock { armed in
            defer { armed = false }
            return armed
        }
        if holds {
            syncing.signal()
            // Bounded: a test that never releases still ends.
            _ = release.wait(timeout: .now() + 30)
        }
        return system.syncData(descriptor)
    }

    func openForAppending(_ path: String) -> Int32 { system.openForAppending(path) }
    func write(_ data: Data, to descriptor: Int32, at offset: Int) -> Bool {
        system.write(data, to: descriptor, at: offset)
    }
    func close(_ descriptor: Int32) { system.close(descriptor) }
    func replace(_ target: URL, with data: Data, temporary: URL, syncFolder: Bool) throws {
        try system.replace(target, with: data, temporary: temporary, syncFolder: syncFolder)
    }
    func syncFolder(_ folder: URL) throws { try system.syncFolder(folder) }
    func rename(_ source: String, to target: String) -> Bool { system.rename(source, to: target) }
    func unlink(_ path: String) -> Bool { system.unlink(path) }
}

/// `start(via:onOffline:)` stores the write without blocking the request's callback queue (issue 28).
@Suite("OfflineQueue onOffline and the callback queue", .offThePool, .exclusive, .timeLimit(.minutes(10)))
struct OfflineCallbackQueueTests {
    @Test("the journal's sync for a request that failed offline does not block its callback queue")
    func syncDoesNotBlockCallbackQueue() async throws {
        let reservation = try PortReservation()
        let directory = OfflineFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let files = HeldSyncFiles()
        // Whatever happens below, the held sync goes on (and with it a callback queue the old code blocked).
        defer { files.release.signal() }
        let queue = try OfflineQueue(
            directory: directory, configuration: OfflineFixtures.configuration(offline: 60), files: files)
        defer { queue.close() }
        queue.suspend()
        let callbackQueue = DispatchQueue(label: "OfflineCallbackQueueTests")
        let outcomes = Collector<String>()
        let request = PostNote(base: reservation.baseURL, text: "from the train")
        request.callbackQueue = callbackQueue
        request.failureHandler = { error in outcomes.append("failed: \(error)") }
        files.armed.withLock { $0 = true }
        request.start(via: queue) { operation in
            // What onOffline may assume: the write is in `pending` (and durable: its sync has returned).
            let pending = queue.pending.map(\.id)
            outcomes.append(pending == [operation.id] ? "queued, pending" : "queued, pending is \(pending)")
        }

        #expect(await files.syncing.signalled(within: 20), "the write was never synced")
        // The sync is held: the callback queue must still run other work meanwhile.
        let ran = DispatchSemaphore(value: 0)
        callbackQueue.async { ran.signal() }
        #expect(await ran.signalled(within: 10), "the callback queue is blocked by the journal's sync")
        #expect(outcomes.all.isEmpty, "onOffline ran before its write was durable: \(outcomes.all)")
        files.release.signal()

        await outcomes.wait(for: 1, timeout: 20)
        // Settle window: a second ending (the failure handler too, or onOffline twice) would arrive within it.
        let settled = DispatchSemaphore(value: 0)
        callbackQueue.asyncAfter(deadline: .now() + 0.5) { settled.signal() }
        #expect(await settled.signalled(within: 10))
        #expect(outcomes.all == ["queued, pending"])
    }

    @Test("when the write cannot be stored, the failure handler gets the original error, once, and onOffline never")
    func storeFailureDeliversFailureOnce() async throws {
        let reservation = try PortReservation()
        let directory = OfflineFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let files = HeldSyncFiles()
        let log = Collector<String>()
        let queue = try OfflineQueue(
            directory: directory, configuration: OfflineFixtures.configuration(offline: 60, log: log), files: files)
        defer { queue.close() }
        queue.suspend()
        files.failingSyncs.withLock { $0 = EIO }
        let callbackQueue = DispatchQueue(label: "OfflineCallbackQueueTests")
        let outcomes = Collector<String>()
        let request = PostNote(base: reservation.baseURL, text: "lost disk")
        request.callbackQueue = callbackQueue
        request.failureHandler = { error in
            guard let urlError = (error as? ConnectionError)?.urlError,
                urlError.code == .cannotConnectToHost
            else { return outcomes.append("failed: \(error)") }
            outcomes.append("failed: cannot connect")
        }
        request.start(via: queue) { _ in outcomes.append("queued") }

        await outcomes.wait(for: 1, timeout: 20)
        let settled = DispatchSemaphore(value: 0)
        callbackQueue.asyncAfter(deadline: .now() + 0.5) { settled.signal() }
        #expect(await settled.signalled(within: 10))
        #expect(outcomes.all == ["failed: cannot connect"])
        #expect(queue.pending.isEmpty)
        #expect(log.all.contains { $0.hasPrefix("could not queue PostNote after it failed offline") })
    }
}
