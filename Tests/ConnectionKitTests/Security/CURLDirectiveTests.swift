import ConnectionKit
import ConnectionKitTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A POST of `body` as text; renders as a curl command.
private final class CURLBodyProbe: ConnectionRequest<Data>, @unchecked Sendable {
    // Safe: only immutable stored properties.
    let target: URL
    let body: Data
    let note: String
    init(_ target: URL, body: Data, note: String = "") {
        self.target = target
        self.body = body
        self.note = note
    }
    override var url: URL? { target }
    override var httpMethod: HTTPMethod { .post }
    override var requestHeaderFields: [String: String] { ["Content-Type": "text/plain", "X-Note": note] }
    override var bodyData: Data? { body }
}

/// `cURLDescription` pasted into a shell sends what the request sends: no byte of a body is read by curl
/// as a directive (a leading `@` names a file to upload with `--data-binary` and `--data`).
@Suite(.offThePool, .timeLimit(.minutes(2))) struct CURLDirectiveTests {
    /// Runs `command` with `/bin/sh -c` as a user pasting it would, its output to a file; `nil` (and an
    /// issue) when it does not end within 30 s.
    private func runShell(_ command: String) async throws -> Int32? {
        let process = Subprocess()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command + " >/dev/null 2>&1"]
        let ended = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in ended.signal() }
        try process.run()
        guard await ended.signalled(within: 30) else {
            process.terminate()
            Issue.record("curl did not finish")
            return nil
        }
        return process.terminationStatus
    }

    @Test(
        "a body starting with @ is sent as those bytes by the pasted command, never as the file it names",
        arguments: ["@", "@-", "<"])
    func aBodyNamingAFileIsSentLiterally(prefix: String) async throws {
        #expect(FileManager.default.isExecutableFile(atPath: "/usr/bin/curl"))
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ck-curl-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let secretFile = folder.appendingPathComponent("id_rsa")
        try Data("PRIVATE-KEY-CONTENT".utf8).write(to: secretFile)
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/upload") { .echo($0) }

        let body = Data((prefix == "@-" ? "@-" : prefix + secretFile.path).utf8)
        let command = CURLBodyProbe(server.url("/upload"), body: body).cURLDescription
        #expect(!command.contains("--data-binary '"), "\(command)")
        // `@-` makes curl read its standard input: give it the file there, as a pipe would.
        let status = try await runShell(command + " <\(secretFile.path)")
        #expect(status == 0, "\(command)")
        let received = try #require(server.receivedRequests("/upload").first)
        #expect(received.body == body, "curl sent \(String(decoding: received.body, as: UTF8.self))")
        #expect(!String(decoding: received.body, as: UTF8.self).contains("PRIVATE-KEY-CONTENT"))
    }

    /// A `'` followed by a combining mark is one `Character` to Swift: quoting that replaced `'` as a
    /// `Character` left it unescaped, and the text after it ran as shell code (found by the `curl-command`
    /// fuzz target).
    @Test(
        "a quote followed by a combining mark stays quoted: pasting the command runs no code of the request's",
        arguments: ["\u{301}", "\u{64C}", "\u{20DD}"])
    func aQuoteWithACombiningMarkStaysQuoted(mark: String) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ck-curl-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let marker = folder.appendingPathComponent("ran")
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/upload") { .echo($0) }

        let injected = "x'\(mark) $(touch \(marker.path)) '"
        let command = CURLBodyProbe(server.url("/upload"), body: Data(injected.utf8), note: injected).cURLDescription
        let status = try await runShell(command)
        #expect(!FileManager.default.fileExists(atPath: marker.path), "the shell ran the request's text: \(command)")
        #expect(status == 0, "\(command)")
        let received = try #require(server.receivedRequests("/upload").first)
        #expect(received.body == Data(injected.utf8))
        #expect(received.header("X-Note") == injected)
    }
}
