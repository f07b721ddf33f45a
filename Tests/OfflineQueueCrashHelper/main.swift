// Used by OfflineQueueCrashTests, which kills it with SIGKILL: it either enqueues writes against a server that
// is down, printing each acknowledged write the moment `enqueue` returns (from one thread, or from several at
// once so that the journal's group commit is under way at the kill), or drains a queue, printing each
// delivered write. Either way it prints `READY` once the queue is open, so that the test kills it only
// after that.
//
// OfflineQueueSyscallTests runs it under strace: with `<large every>`, every that many writes carries a body too
// large to stay inline, so that the trace also holds the body files' creations and renames.
//
// Usage: OfflineQueueCrashHelper enqueue <queue directory> <server base URL> <count> [<producers> [<large every>]]
//        OfflineQueueCrashHelper drain <queue directory> [<server base URL> [<in flight>]]
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
    /// Bytes of padding after `write-<index>`: more than the queue's inline limit puts the body in a file.
    let padding: Int

    init(base: URL, index: Int, padding: Int = 0) {
        self.base = base
        self.index = index
        self.padding = padding
        super.init()
    }

    override var url: URL? { base.appendingPathComponent("writes") }
    override var httpMethod: HTTPMethod { .post }
    override var bodyData: Data? { Data("write-\(index)".utf8) + Data(repeating: 0x2E, count: padding) }
    override var requestHeaderFields: [String: String] {
        ["Content-Type": "text/plain", "Cookie": "session=crash-cookie"]
    }
    override var authorization: Authorization? { .bearer("crash-secret-token") }
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("OfflineQueueCrashHelper: \(message)\n".utf8))
    exit(1)
}

/// `enqueue <directory> <base URL> <count> [<producers> [<large every>]]`: enqueue against a server that is
/// down, printing `<index> <idempotency key>` as each `enqueue` returns. With several producers, thread `p`
/// enqueues the indexes `p`, `p + producers`, … and each line is printed with one `write`, so lines never
/// interleave. With `large every` > 0, the writes whose index it divides carry a 100 KiB body (a body file).
func enqueueWrites(directory: String, base: URL, count: Int, producers: Int, largeEvery: Int = 0) {
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
    let finished = DispatchGroup()
    for producer in 0..<producers {
        finished.enter()
        Thread {
            for index in stride(from: producer, to: count, by: producers) {
                do {
                    let large = largeEvery > 0 && index % largeEvery == 0
                    let write = CrashWrite(base: base, index: index, padding: large ? 100 * 1024 : 0)
                    let operation = try queue.enqueue(write)
                    FileHandle.standardOutput.write(Data("\(index) \(operation.idempotencyKey)\n".utf8))
                } catch {
                    fail("enqueue \(index) failed: \(error)")
                }
            }
            finished.leave()
        }.start()
    }
    finished.wait()
    FileHandle.standardOutput.write(Data("DONE\n".utf8))
}

/// `drain <directory> [<base URL> [<in flight>]]`: deliver what is queued (to the server now up, at `base`:
/// the origin the class is registered for), up to `in flight` at once, printing `DELIVERED <key>` for each,
/// until killed.
func drainWrites(directory: String, base: URL, inFlight: Int) -> Never {
    let queue: OfflineQueue
    do {
        queue = try OfflineQueue(
            directory: URL(fileURLWithPath: directory, isDirectory: true),
            configuration: OfflineQueue.Configuration(
                onlineRetryInterval: 0.05, offlineRetryInterval: 0.2, maximumInFlight: inFlight,
                callbackQueue: DispatchQueue(label: "OfflineQueueCrashHelper")))
    } catch {
        fail("cannot open the queue: \(error)")
    }
    queue.deliveredHandler = { operation, _ in
        FileHandle.standardOutput.write(Data("DELIVERED \(operation.idempotencyKey)\n".utf8))
    }
    FileHandle.standardOutput.write(Data("READY\n".utf8))
    queue.register(CrashWrite.self) { CrashWrite(base: base, index: -1) }
    dispatchMain()
}

let arguments = CommandLine.arguments
if (3...5).contains(arguments.count), arguments[1] == "drain",
    let base = arguments.count > 3 ? URL(string: arguments[3]) : URL(fileURLWithPath: "/"),
    let inFlight = arguments.count > 4 ? Int(arguments[4]) : 1
{
    drainWrites(directory: arguments[2], base: base, inFlight: inFlight)
} else if (5...7).contains(arguments.count), arguments[1] == "enqueue", let base = URL(string: arguments[3]),
    let count = Int(arguments[4]), let producers = arguments.count > 5 ? Int(arguments[5]) : 1, producers > 0,
    let largeEvery = arguments.count > 6 ? Int(arguments[6]) : 0
{
    enqueueWrites(
        directory: arguments[2], base: base, count: count, producers: producers, largeEvery: largeEvery)
} else {
    fail(
        "usage: OfflineQueueCrashHelper enqueue <queue directory> <server base URL> <count>"
            + " [<producers> [<large every>]]"
            + " | drain <queue directory> [<server base URL> [<in flight>]]")
}
