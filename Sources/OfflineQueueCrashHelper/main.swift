// Used by OfflineQueueCrashTests: enqueues writes against a server that is down, printing each
// acknowledged write as `<index> <idempotency key>` the moment `enqueue` returns, until it is killed.
//
// Usage: OfflineQueueCrashHelper <queue directory> <server base URL> <count>
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

let arguments = CommandLine.arguments
guard arguments.count == 4, let base = URL(string: arguments[2]), let count = Int(arguments[3]) else {
    fail("usage: OfflineQueueCrashHelper <queue directory> <server base URL> <count>")
}
let queue: OfflineQueue
do {
    // The server is down: after the first refused attempt the queue waits an hour, so this process only enqueues.
    queue = try OfflineQueue(
        directory: URL(fileURLWithPath: arguments[1], isDirectory: true),
        configuration: OfflineQueue.Configuration(
            offlineRetryInterval: 3600, callbackQueue: DispatchQueue(label: "OfflineQueueCrashHelper")))
} catch {
    fail("cannot open the queue: \(error)")
}
for index in 0..<count {
    do {
        let operation = try queue.enqueue(CrashWrite(base: base, index: index))
        FileHandle.standardOutput.write(Data("\(index) \(operation.idempotencyKey)\n".utf8))
    } catch {
        fail("enqueue \(index) failed: \(error)")
    }
}
FileHandle.standardOutput.write(Data("DONE\n".utf8))
