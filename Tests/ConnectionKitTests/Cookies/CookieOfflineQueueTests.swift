import ConnectionKit
import ConnectionKitTesting
import Foundation
import Testing

/// A write of a class with a cookie jar (the jar is the test's, shared by every instance the queue makes).
final class CookieJarWrite: ConnectionRequest<Data>, @unchecked Sendable {
    // Safe: immutable stored properties only.
    let base: URL
    let jar: CookieJar

    init(base: URL, jar: CookieJar) {
        self.base = base
        self.jar = jar
        super.init()
    }

    override var url: URL? { base.appendingPathComponent("jar-writes") }
    override var httpMethod: HTTPMethod { .post }
    override var bodyData: Data? { Data("note".utf8) }
    override var cookieJar: CookieJar? { jar }
}

@Suite("The offline queue and the cookie jar", .offThePool, .exclusive, .timeLimit(.minutes(20)))
struct CookieOfflineQueueTests {
    @Test("a stored write holds no cookie of the jar; at send time the jar supplies its cookies of that moment")
    func storedWriteHoldsNoCookie() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("POST", "/jar-writes") { _ in .text("stored") }
        let jar = CookieJar()
        jar.store(setCookie: "session=stale-cookie-31; Path=/", from: server.url("/"))
        let directory = OfflineFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let queue = try OfflineQueue(directory: directory, configuration: OfflineFixtures.configuration())
        defer { queue.close() }
        queue.suspend()
        let base = server.baseURL
        queue.register(CookieJarWrite.self) { CookieJarWrite(base: base, jar: jar) }
        let delivered = Collector<QueuedOperation>()
        queue.deliveredHandler = { operation, _ in delivered.append(operation) }
        let operation = try queue.enqueue(CookieJarWrite(base: base, jar: jar))
        #expect(operation.headerFields.keys.allSatisfy { $0.lowercased() != "cookie" })
        #expect(operation.removedSecretHeaderNames.isEmpty, "the class sets no Cookie of its own")
        for file in OfflineFixtures.files(in: directory) {
            let bytes = try Data(contentsOf: file)
            #expect(bytes.range(of: Data("stale-cookie-31".utf8)) == nil, "a cookie value in \(file.path)")
        }
        // The session rotates while the write waits: the write goes with the cookie of the moment it is sent.
        jar.store(setCookie: "session=fresh-cookie-32; Path=/", from: server.url("/"))
        queue.resume()
        await delivered.wait(for: 1)
        #expect(server.receivedRequests("/jar-writes").first?.header("Cookie") == "session=fresh-cookie-32")
    }
}
