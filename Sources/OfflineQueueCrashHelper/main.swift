// Used by OfflineQueueCrashTests, which kills it with SIGKILL: it either enqueues writes against a server that
// is down, printing each acknowledged write the moment `enqueue` returns, or drains a queue, printing each
// delivered write. Either way it prints `READY` once the queue is open, so that the test kills it only
// after that.
//
// Usage: OfflineQueueCrashHelper enqueue <queue directory> <server base URL> <count>
//        OfflineQueueCrashHelper drain <queue directory>
import ConnectionKit
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One write, as the app would define it: a POST whose credentials come from `authorization`.
final class CrashWrite: ConnectionRequest<Data>, @unchecked Sendable {
    // Safe: immutable stored properties only.
    let base: URL
    let index: Int

    init(base: URL, index: Int) {
        self.base = base
        self.index = index
        super.init()
    }

    override var url: URL? { base.appendingPathComponent("writes") }
    override var httpMethod: HTTPMethod { .post }
    override var bodyData: Data? { Data("write-\(index)".utf8) }
    override var requestHeaderFields: [String: String] {
        ["Content-Type": "text/plain", "Cookie": "session=crash-cookie"]
    }
    override var authorization: Authorization? { .bearer("crash-secret-token") }
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("OfflineQueueCrashHelper: \(message)\n".utf8))
    exit(1)
}

/// `enqueue <directory> <base URL> <count>`: enqueue against a server that is down, printing
/// `<index> <idempotency key>` as each `enqueue` returns.
func enqueueWrites(directory: String, base: URL, count: Int) {
    let queue: OfflineQueue
    do {
        // The server is down: after the first refused attempt the queue waits an hour, so this only enqueues.
        queue = try OfflineQueue(
            directory: URL(fileURLWithPath: directory, isDirectory: true),
            configuration: OfflineQueue.Configuration(
                offlineRetryInterval: 3600, callbackQueue: DispatchQueue(label: "OfflineQueueCrashHelper")))
    } catch {
        fail("cannot open the queue: \(error)")
    }
    FileHandle.standardOutput.write(Data("READY\n".utf8))
    for index in 0..<count {
        do {
            let operation = try queue.enqueue(CrashWrite(base: base, index: index))
            FileHandle.standardOutput.write(Data("\(index) \(operation.idempotencyKey)\n".utf8))
        } catch {
            fail("enqueue \(index) failed: \(error)")
        }
    }
    FileHandle.standardOutput.write(Data("DONE\n".utf8))
}

/// `drain <directory>`: deliver what is queued (to the server now up), printing `DELIVERED <key>` for each,
/// until killed.
func drainWrites(directory: String) -> Never {
    let queue: OfflineQueue
    do {
        queue = try OfflineQueue(
            directory: URL(fileURLWithPath: directory, isDirectory: true),
            configuration: OfflineQueue.Configuration(
                onlineRetryInterval: 0.05, offlineRetryInterval: 0.2,
                callbackQueue: DispatchQueue(label: "OfflineQueueCrashHelper")))
    } catch {
        fail("cannot open the queue: \(error)")
    }
    queue.deliveredHandler = { operation, _ in
        FileHandle.standardOutput.write(Data("DELIVERED \(operation.idempotencyKey)\n".utf8))
    }
    FileHandle.standardOutput.write(Data("READY\n".utf8))
    queue.register(CrashWrite.self) { CrashWrite(base: URL(fileURLWithPath: "/"), index: -1) }
    dispatchMain()
}

let arguments = CommandLine.arguments
if arguments.count == 3, arguments[1] == "drain" {
    drainWrites(directory: arguments[2])
} else if arguments.count == 5, arguments[1] == "enqueue", let base = URL(string: arguments[3]),
    let count = Int(arguments[4])
{
    enqueueWrites(directory: arguments[2], base: base, count: count)
} else {
    fail("usage: OfflineQueueCrashHelper enqueue <queue directory> <server base URL> <count> | drain <queue directory>")
}
