import ConnectionKit
import ConnectionKitTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A write carrying every kind of secret: authorization, a cookie, a secret header, a secret query item.
final class SecretWrite: ConnectionRequest<Data>, @unchecked Sendable {
    // Safe: immutable stored properties only.
    let base: URL
    let body: Data

    init(base: URL, body: Data = Data("public body".utf8)) {
        self.base = base
        self.body = body
        super.init()
    }

    convenience override init() {
        self.init(base: URL(fileURLWithPath: "/"))
    }

    override var url: URL? {
        var components = URLComponents(
            url: base.appendingPathComponent("secret-writes"), resolvingAgainstBaseURL: false)
        components?.queryItems = [
            URLQueryItem(name: "page", value: "1"), URLQueryItem(name: "api_token", value: "query-secret-77"),
        ]
        return components?.url
    }
    override var httpMethod: HTTPMethod { .put }
    override var bodyData: Data? { body }
    override var requestHeaderFields: [String: String] {
        ["X-Api-Key": "header-secret-42", "Cookie": "session=cookie-secret-99", "X-Visible": "plain"]
    }
    override var secretHeaderFields: Set<String> { ["x-api-key"] }
    override var secretQueryItems: Set<String> { ["api_token"] }
    override var authorization: Authorization? { .basic(username: "ann", password: "password-secret-13") }
}

@Suite("OfflineQueue secrets and files", .offThePool, .exclusive, .timeLimit(.minutes(10)))
struct OfflineSecretsTests {
    static let secrets = [
        "header-secret-42", "cookie-secret-99", "query-secret-77", "password-secret-13",
        Authorization.basic(username: "ann", password: "password-secret-13").headerValue,
        Data("ann:password-secret-13".utf8).base64EncodedString(),
    ]

    @Test("no secret is in any file of the directory; every file is 0600; secrets are re-applied at send time")
    func secretsNeverOnDisk() async throws {
        let reservation = try PortReservation()
        let server = TestServer()
        defer { server.stop() }
        server.route("PUT", "/secret-writes") { _ in .text("stored") }
        let directory = OfflineFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var configuration = OfflineFixtures.configuration(offline: 60)
        configuration.inlineBodyLimit = 1024
        let queue = try OfflineQueue(directory: directory, configuration: configuration)
        defer { queue.close() }
        queue.register(SecretWrite.self) { SecretWrite() }
        let delivered = Collector<QueuedOperation>()
        queue.deliveredHandler = { operation, _ in delivered.append(operation) }
        let failures = Collector<FailedAttempt>()
        queue.failedAttemptHandler = { attempt in failures.append(attempt) }

        let large = Data((0..<5000).map { UInt8(truncatingIfNeeded: $0) })
        let small = try queue.enqueue(SecretWrite(base: reservation.baseURL))
        let big = try queue.enqueue(SecretWrite(base: reservation.baseURL, body: large))
        await failures.wait(for: 1)

        let files = OfflineFixtures.files(in: directory)
        #expect(files.contains { $0.path.contains("/bodies/") }, "the large body has a file of its own")
        #expect(files.contains { $0.path.contains("/journal/") }, "the operations are in the journal")
        #expect(queue.pending.map(\.id) == [small.id, big.id])
        for file in files {
            let bytes = try Data(contentsOf: file)
            for secret in Self.secrets {
                #expect(bytes.range(of: Data(secret.utf8)) == nil, "\(secret) found in \(file.path)")
            }
            let mode = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int
            #expect(mode == 0o600, "\(file.lastPathComponent) has mode \(String(mode ?? 0, radix: 8))")
        }
        for folder in ["", "pending", "bodies", "dead", "corrupt", "journal"] {
            let path = directory.appendingPathComponent(folder).path
            let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
            #expect(mode == 0o700, "\(path) has mode \(String(mode ?? 0, radix: 8))")
        }
        #expect(small.headerFields["X-Visible"] == "plain")
        #expect(small.removedSecretHeaderNames.sorted() == ["Cookie", "X-Api-Key"])
        #expect(small.removedSecretQueryItemNames == ["api_token"])
        #expect(!small.url.absoluteString.contains("api_token"))

        try reservation.startServer(server)
        queue.setReachable(true)
        await delivered.wait(for: 2)
        let received = server.receivedRequests("/secret-writes")
        let byKey = Dictionary(received.map { ($0.header("Idempotency-Key") ?? "", $0) }, uniquingKeysWith: { $1 })
        for operation in [small, big] {
            let request = try #require(byKey[operation.idempotencyKey])
            #expect(request.header("Authorization") == Self.secrets[4])
            #expect(request.header("X-Api-Key") == "header-secret-42")
            #expect(request.header("Cookie") == "session=cookie-secret-99")
            #expect(request.header("X-Visible") == "plain")
            #expect(request.queryItems["api_token"] == "query-secret-77")
            #expect(request.queryItems["page"] == "1")
        }
        #expect(byKey[big.idempotencyKey]?.body == large)
        #expect(byKey[small.idempotencyKey]?.bodyString == "public body")
        #expect(OfflineFixtures.files(in: directory.appendingPathComponent("bodies")).isEmpty)
    }

    @Test("a second queue cannot open a directory that is open; it can once the first is closed")
    func directoryLock() throws {
        let directory = OfflineFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = try OfflineQueue(directory: directory, configuration: OfflineFixtures.configuration())
        #expect(throws: ConnectionError.self) {
            _ = try OfflineQueue(directory: directory, configuration: OfflineFixtures.configuration())
        }
        first.close()
        #expect(throws: ConnectionError.self) {
            try first.enqueue(PostNote(base: URL(fileURLWithPath: "/"), text: "x"))
        }
        let second = try OfflineQueue(directory: directory, configuration: OfflineFixtures.configuration())
        second.close()
    }
}
