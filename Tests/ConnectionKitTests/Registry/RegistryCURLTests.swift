import ConnectionKitTesting
import Foundation
import Testing

@testable import ConnectionKit

@Suite(.offThePool, .exclusive, .timeLimit(.minutes(20))) struct RegistryCURLTests {
    /// Runs `command` with `/bin/sh -c`, as a user pasting it would; `nil` (and an issue) on timeout.
    private func runShell(_ command: String) async -> (status: Int32, output: Data)? {
        let process = Subprocess()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        let ended = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in ended.signal() }
        do {
            try process.run()
        } catch {
            Issue.record("could not run /bin/sh: \(error)")
            return nil
        }
        // Read on a thread of its own: a curl that hangs must fail the test, not block it on the pipe (nor
        // hold a Dispatch worker, which libdispatch on Linux does not replace while it blocks).
        let data = ConnectionKitTests.Locked<Data?>(nil)
        let read = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let bytes = output.fileHandleForReading.readDataToEndOfFile()
            data.withLock { $0 = bytes }
            read.signal()
        }
        guard await ended.signalled(within: 30) else {
            process.terminate()
            Issue.record("curl did not finish")
            return nil
        }
        guard await read.signalled(within: 10), let bytes = data.withLock({ $0 }) else {
            Issue.record("curl's output did not end")
            return nil
        }
        return (process.terminationStatus, bytes)
    }

    @Test func theCURLStringRunsWithCurlAndGetsTheSameResponse() async throws {
        #expect(FileManager.default.isExecutableFile(atPath: "/usr/bin/curl"))
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/echo") { .echo($0) }
        let body = Data("{\"note\": \"it's $HOME `uname` \\\"quoted\\\"\",\n \"x\": 1}".utf8)
        let headers = [
            "Content-Type": "application/json",
            "X-Shell": "it's \"quoted\" $PATH `id` ; echo pwned",
            "X-Empty": "",
        ]
        let request = CURLProbe(server.url("/echo?q=a%20b&x=1"), method: .post, headers: headers, body: body)
        let beforeSending = request.cURLDescription
        let data = try await request.value()
        let sent = request.cURLDescription
        #expect(sent == beforeSending, "the built request and the sent one render the same")
        #expect(sent.hasPrefix("curl "))

        guard let run = await runShell(sent) else { return }
        #expect(run.status == 0)
        let viaSession = try JSONDecoder().decode(TestRequest.self, from: data)
        let viaCurl = try JSONDecoder().decode(TestRequest.self, from: run.output)
        #expect(viaCurl.method == viaSession.method)
        #expect(viaCurl.path == viaSession.path)
        #expect(viaCurl.query == viaSession.query)
        #expect(viaCurl.body == viaSession.body)
        #expect(viaCurl.body == body)
        for name in ["Content-Type", "X-Shell", "X-Empty"] {
            #expect(viaCurl.header(name) == viaSession.header(name), "\(name)")
        }
        #expect(viaCurl.header("X-Shell") == headers["X-Shell"])
        #expect(server.hits("/echo") == 2)
    }

    @Test func getAndHeadRunToo() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/items") { .text("items for \($0.method)") }
        let get = CURLProbe(server.url("/items?filter=%5Bnew%5D"))
        #expect(!get.cURLDescription.contains("--request"))
        #expect(get.cURLDescription.contains("--globoff") == get.cURLDescription.contains("["))
        let output = await runShell(get.cURLDescription)
        #expect(output.map { String(decoding: $0.output, as: UTF8.self) } == "items for GET")
        let head = CURLProbe(server.url("/items"), method: .head)
        #expect(head.cURLDescription.contains("--head"))
        #expect(await runShell(head.cURLDescription)?.status == 0)
    }

    @Test("a class's proxy is in the command: run as is, it goes through that proxy, whose credentials are redacted")
    func theCommandGoesThroughTheClassProxy() async throws {
        let proxy = try await Tinyproxy.started()
        defer { proxy.stop() }
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/hello") { _ in .text("hello") }
        let command = ProxiedCURLProbe(server.url("/hello"), proxy: proxy.url()).cURLDescription
        #expect(command.contains("--proxy 'http://127.0.0.1:\(proxy.port)'"), "\(command)")
        let run = await runShell(command)
        #expect(run.map { String(decoding: $0.output, as: UTF8.self) } == "hello")
        #expect(server.receivedRequests("/hello").last?.header("Via")?.contains(proxy.viaName) == true)

        let password = "Pr0xySecret\(UUID().uuidString.prefix(6))"
        let withCredentials = ProxiedCURLProbe(
            server.url("/hello"), proxy: proxy.url(user: "ckuser", password: password)
        ).cURLDescription
        #expect(withCredentials.contains("--proxy-user '<redacted>'"), "\(withCredentials)")
        #expect(!withCredentials.contains(password) && !withCredentials.contains("ckuser"))
    }

    @Test func quotingAndUnbuildableRequests() {
        #expect(CURLCommand.quote("it's") == "'it'\\''s'")
        #expect(CURLCommand.quote("$HOME") == "'$HOME'")
        let noURL = CURLProbe(URL(fileURLWithPath: "/tmp/x"))
        #expect(noURL.cURLDescription.hasPrefix("# CURLProbe is not a valid request"))
    }
}

/// A ``Probe`` sent through a proxy of its class.
private final class ProxiedCURLProbe: Probe, @unchecked Sendable {
    // Safe: a `let` set in init.
    let through: URL
    init(_ target: URL, proxy: URL) {
        through = proxy
        super.init(target)
    }
    override var proxy: URL? { through }
}
