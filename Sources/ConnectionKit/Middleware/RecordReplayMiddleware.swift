import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Records real responses to a folder, then replays them without the network: for tests that must run
/// offline and the same every time.
///
/// In ``Mode/record`` every request goes to the network, and each whole response kept in memory is written to
/// `folder`, one file per method, URL and body. In ``Mode/replay`` nothing is sent: each request is answered
/// from its file, and a request with no recording ends the run with a ``ConnectionError/Kind/middleware``
/// error whose underlying error is ``MissingRecording`` (naming the method and the redacted URL) — never the
/// network. A file that cannot be read as a recording fails the same way (``UnreadableRecording``).
///
/// ```swift
/// let mode: RecordReplayMiddleware.Mode = ProcessInfo.processInfo.environment["RECORD"] == nil ? .replay : .record
/// let client = ConnectionClient(middleware: [RecordReplayMiddleware(folder: fixtures, mode: mode)])
/// ```
///
/// What a recording holds: the status, the response's header fields and its body — never the request's
/// header fields (no `Authorization` reaches the folder), and the URL only redacted (secret query items as
/// the class names them). Requests that save to a file or stream are not recorded, and a replay cannot
/// answer them. The key is the method, the URL and the body in memory (`URLRequest.httpBody`); a body sent
/// from a file (a large multipart form) is not part of it.
public struct RecordReplayMiddleware: ConnectionMiddleware {
    /// Whether responses are recorded from the network or replayed from the folder.
    public enum Mode: Sendable, Hashable {
        /// Send to the network and write each response to the folder.
        case record
        /// Answer from the folder only; fail a request with no recording.
        case replay
    }

    /// A request in ``Mode/replay`` had no recording in the folder.
    public struct MissingRecording: Error, Sendable, CustomStringConvertible {
        /// The request's method.
        public let method: String
        /// The request's URL, redacted.
        public let url: String
        /// The file that was looked for.
        public let file: URL

        /// What was missing, and where.
        public var description: String { "no recording of \(method) \(url) (looked for \(file.path))" }
    }

    /// A file in the folder is not a recording this middleware can read (damaged, from another version, too
    /// large, or not a regular file).
    public struct UnreadableRecording: Error, Sendable, CustomStringConvertible {
        /// The file.
        public let file: URL
        /// What is wrong with it.
        public let reason: String

        /// The file and what is wrong with it.
        public var description: String { "unreadable recording \(file.path): \(reason)" }
    }

    /// The folder recordings are written to and read from.
    public let folder: URL
    /// Whether this middleware records or replays.
    public let mode: Mode

    /// Records to, or replays from, `folder` (created, owner-only, on the first recording).
    public init(folder: URL, mode: Mode) {
        self.folder = folder
        self.mode = mode
    }

    /// The key of the attempt in flight, kept for the run: the response is written under it.
    public func runStarted(_ request: AnyConnectionRequest) -> (any Sendable)? {
        mode == .record ? Locked<RecordingKey?>(nil) : nil
    }

    /// Replays the recording of `request`, or (recording) notes its key and passes it on.
    public func answer(for request: URLRequest, context: MiddlewareContext) throws -> MiddlewareAnswer? {
        let key = RecordingKey(request, secretQueryItems: context.request.secretQueryItems, folder: folder)
        switch mode {
        case .record:
            (context.runValue as? Locked<RecordingKey?>)?.withLock { $0 = key }
            return nil
        case .replay:
            return try key.read()
        }
    }

    /// Writes a whole response kept in memory to the folder.
    public func received(_ outcome: MiddlewareOutcome, context: MiddlewareContext) {
        guard mode == .record, case .response(let response, let body?) = outcome,
            let key = (context.runValue as? Locked<RecordingKey?>)?.withLock({ $0 })
        else { return }
        key.write(response, body: body)
    }
}

/// Where one request's recording lives, and what it says of the request.
struct RecordingKey: Sendable {
    let method: String
    let redactedURL: String
    let file: URL

    /// The largest recording read back: a planted file cannot make a replay allocate more.
    static let maximumFileSize = 256 * 1024 * 1024

    init(_ request: URLRequest, secretQueryItems: Set<String>, folder: URL) {
        let method = request.httpMethod ?? "GET"
        self.method = method
        self.redactedURL = Redaction.redactedURL(request.url, secretQueryItems: secretQueryItems) ?? ""
        var digest = SHA256()
        digest.update(Array(method.utf8) + [0] + Array((request.url?.absoluteString ?? "").utf8) + [0])
        digest.update(Array(request.httpBody ?? Data()))
        let hash = SHA256.hex(digest.finalize())
        // A readable prefix (method, host) for whoever opens the folder; the hash is what keys it.
        let host = (request.url?.host ?? "none").filter { $0.isLetter || $0.isNumber || $0 == "." || $0 == "-" }
        self.file = folder.appendingPathComponent("\(method.lowercased())-\(host.prefix(64))-\(hash.prefix(32)).json")
    }

    /// The file's recording as an answer.
    func read() throws -> MiddlewareAnswer {
        let values = try? file.resourceValues(forKeys: [.isRegularFileKey, .isSymbolicLinkKey, .fileSizeKey])
        guard let values else {
            throw RecordReplayMiddleware.MissingRecording(method: method, url: redactedURL, file: file)
        }
        guard values.isRegularFile == true, values.isSymbolicLink != true else {
            throw RecordReplayMiddleware.UnreadableRecording(file: file, reason: "not a regular file")
        }
        guard (values.fileSize ?? 0) <= Self.maximumFileSize else {
            throw RecordReplayMiddleware.UnreadableRecording(file: file, reason: "larger than 256 MiB")
        }
        let recording: Recording
        do {
            recording = try JSONDecoder().decode(Recording.self, from: Data(contentsOf: file))
        } catch {
            throw RecordReplayMiddleware.UnreadableRecording(file: file, reason: "not a recording: \(error)")
        }
        guard recording.version == Recording.currentVersion else {
            throw RecordReplayMiddleware.UnreadableRecording(
                file: file, reason: "version \(recording.version), not \(Recording.currentVersion)")
        }
        return MiddlewareAnswer(
            statusCode: recording.statusCode,
            headerFields: recording.headerFields.map { (name: $0.name, value: $0.value) }, body: recording.body)
    }

    /// Writes `response` and `body` to the file, whole or not at all. A failure is written to standard error,
    /// not fatal: the run that recorded already has its answer, and the replay will name the missing file.
    func write(_ response: ConnectionResponse, body: Data) {
        let recording = Recording(
            version: Recording.currentVersion, method: method, url: redactedURL, statusCode: response.statusCode,
            headerFields: response.headerFieldLines.map { Recording.Field(name: $0.name, value: $0.value) },
            body: body)
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            try FileManager.default.createDirectory(
                at: file.deletingLastPathComponent(), withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700])
            try encoder.encode(recording).write(to: file, options: .atomic)
        } catch {
            let line = "ConnectionKit: RecordReplayMiddleware could not write \(file.path): \(error)\n"
            FileHandle.standardError.write(Data(line.utf8))
        }
    }
}

/// A recording as its file holds it.
struct Recording: Codable {
    static let currentVersion = 1

    struct Field: Codable {
        let name: String
        let value: String
    }

    let version: Int
    let method: String
    /// The request's URL, redacted: for a reader of the folder (the file's name is its key).
    let url: String
    let statusCode: Int
    let headerFields: [Field]
    let body: Data
}
