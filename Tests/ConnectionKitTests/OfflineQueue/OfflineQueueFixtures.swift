import ConnectionKit
import ConnectionKitTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A write as an app defines it: POST `<base>/notes` with a text body and bearer credentials.
final class PostNote: ConnectionRequest<Data>, @unchecked Sendable {
    // Safe: immutable stored properties only.
    let base: URL
    let text: String
    let endpoint: String
    /// The class's client; `nil` for the shared one.
    let ownClient: ConnectionClient?

    init(base: URL, text: String, path: String = "notes", client: ConnectionClient? = nil) {
        self.base = base
        self.text = text
        self.endpoint = path
        self.ownClient = client
        super.init()
    }

    /// The template the queue uses to send stored notes.
    convenience override init() {
        self.init(base: URL(fileURLWithPath: "/"), text: "")
    }

    override var url: URL? { base.appendingPathComponent(endpoint) }
    override var httpMethod: HTTPMethod { .post }
    override var bodyData: Data? { Data(text.utf8) }
    override var requestHeaderFields: [String: String] { ["Content-Type": "text/plain"] }
    override var authorization: Authorization? { .bearer("note-token") }
    override var timeoutInterval: TimeInterval { 5 }
    override var client: ConnectionClient { ownClient ?? super.client }
}

/// Collects values from any thread and lets a test wait until there are enough.
final class Collector<Value: Sendable>: Sendable {
    private let values = Locked<[Value]>([])
    private let arrived = DispatchSemaphore(value: 0)

    func append(_ value: Value) {
        values.withLock { $0.append(value) }
        arrived.signal()
    }

    var all: [Value] { values.withLock { $0 } }

    /// Waits until `count` values arrived; records an issue and returns `false` after `timeout` seconds.
    /// The default only bounds a failure, like every such wait of the suite: 60 s, since the loaded libcurl
    /// pass of CI (stress-ng beside the whole suite) once took over 30 s to queue a write that fails at once.
    @discardableResult
    func wait(
        for count: Int, timeout: TimeInterval = 60, sourceLocation: SourceLocation = #_sourceLocation
    ) async -> Bool {
        // On a thread of its own, not the test's pool thread (see `onOwnThread`).
        let came = await onOwnThread { [self] in
            let deadline = DispatchTime.now() + timeout
            while all.count < count {
                if arrived.wait(timeout: deadline) == .timedOut { return false }
            }
            return true
        }
        if !came {
            Issue.record("waited \(timeout) s for \(count) values, got \(all.count)", sourceLocation: sourceLocation)
        }
        return came
    }
}

enum OfflineFixtures {
    /// A fresh empty folder under the temporary directory.
    static func temporaryDirectory() -> URL {
        URL(fileURLWithPath: NSTemporaryDirectory(), isDirectory: true)
            .appendingPathComponent("OfflineQueueTests-\(UUID().uuidString)", isDirectory: true)
    }

    /// Small intervals, a private callback queue, and log lines collected.
    static func configuration(
        online: TimeInterval = 0.05, offline: TimeInterval = 0.2, log: Collector<String>? = nil
    ) -> OfflineQueue.Configuration {
        OfflineQueue.Configuration(
            onlineRetryInterval: online, offlineRetryInterval: offline,
            callbackQueue: DispatchQueue(label: "OfflineQueueTests.callbacks"),
            log: { line in log?.append(line) })
    }

    /// Opens the queue in `directory`, suspended so that nothing is sent, enqueues `request` and closes the
    /// queue again; returns the stored write.
    static func enqueueOne(_ request: AnyConnectionRequest, in directory: URL) throws -> QueuedOperation {
        let queue = try OfflineQueue(directory: directory, configuration: configuration(offline: 60))
        defer { queue.close() }
        queue.suspend()
        return try queue.enqueue(request)
    }

    /// `<sequence, 20 digits>.json`, as the queue names an entry's file (version 1's `pending/`, `dead/`).
    static func entryFileName(sequence: UInt64) -> String {
        let digits = String(sequence)
        return String(repeating: "0", count: max(0, 20 - digits.count)) + digits + ".json"
    }

    /// `operation` as the JSON object the queue stores, for a test to edit and plant.
    static func storedJSON(_ operation: QueuedOperation) throws -> [String: Any] {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        let object = try JSONSerialization.jsonObject(with: encoder.encode(operation))
        return try #require(object as? [String: Any])
    }

    /// Answers the requests to `method path` with `responses` in turn, the last one repeating.
    static func answer(
        _ server: TestServer, _ path: String, inTurn responses: [TestResponse], method: String = "POST"
    ) {
        let served = Locked(0)
        server.route(method, path) { _ in
            let index = served.withLock { count -> Int in
                defer { count += 1 }
                return count
            }
            return responses[min(index, responses.count - 1)]
        }
    }

    /// Every regular file under `directory`, recursively.
    static func files(in directory: URL) -> [URL] {
        guard let enumerator = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil) else {
            return []
        }
        return enumerator.compactMap { $0 as? URL }.filter {
            var isFolder: ObjCBool = false
            return FileManager.default.fileExists(atPath: $0.path, isDirectory: &isFolder) && !isFolder.boolValue
        }
    }
}

/// The server up again on a reserved port, answering `POST path` with `ok`, and the queue in a folder opened
/// again with its log and its deliveries collected: how the crash and corruption tests check what was kept.
final class ReopenedQueue {
    let server = TestServer()
    let log = Collector<String>()
    let delivered = Collector<QueuedOperation>()
    let queue: OfflineQueue

    init(_ directory: URL, serving path: String, on reservation: PortReservation) throws {
        server.route("POST", path) { _ in .text("ok") }
        do {
            try reservation.startServer(server)
            queue = try OfflineQueue(directory: directory, configuration: OfflineFixtures.configuration(log: log))
        } catch {
            server.stop()
            throw error
        }
        queue.deliveredHandler = { [delivered] operation, _ in delivered.append(operation) }
    }

    /// Closes the queue, then stops the server.
    func close() {
        queue.close()
        server.stop()
    }
}
