import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Debian's `tinyproxy`, started for a test on a free loopback port with a generated configuration
/// (`.ci/run` installs it). It runs in the foreground and logs to its standard error, which tells
/// when it accepts connections and which requests it forwarded.
final class Tinyproxy: @unchecked Sendable {
    // Safe: every property is a `let` set in `init`; `output` is thread-safe.
    let port: Int
    /// The name it puts in the `Via` header of every request it forwards.
    let viaName: String
    private let process = Subprocess()
    private let folder: URL
    private let output = ProcessOutput()

    /// `http://127.0.0.1:<port>`, with `user` and `password` in it when given.
    func url(user: String? = nil, password: String? = nil) -> URL {
        let credentials = user.map { "\($0):\(password ?? "")@" } ?? ""
        return URL(string: "http://\(credentials)127.0.0.1:\(port)") ?? URL(fileURLWithPath: "/")
    }

    /// Starts tinyproxy, asking for `basicAuth` credentials when given; waits up to `timeout` seconds for it
    /// to accept connections. tinyproxy cannot listen on port 0, so a port the OS chose is reserved and
    /// freed just before it starts; should another process take it meanwhile, another port is tried. The
    /// wait runs on a thread of its own, not the test's pool thread (see `onOwnThread`).
    static func started(basicAuth: (user: String, password: String)? = nil, timeout: TimeInterval = 10) async throws
        -> Tinyproxy
    {
        try await onOwnThread {
            var lastError: any Error = TinyproxyError(message: "tinyproxy did not start")
            for _ in 0..<3 {
                let port = try PortReservation().port
                do {
                    return try Tinyproxy(port: port, basicAuth: basicAuth, timeout: timeout)
                } catch let error as TinyproxyError where error.portTaken {
                    lastError = error
                }
            }
            throw lastError
        }
    }

    private init(port: Int, basicAuth: (user: String, password: String)?, timeout: TimeInterval) throws {
        guard let executable = Self.executable else {
            throw TinyproxyError(message: "tinyproxy is not installed (apt-get install -y tinyproxy; .ci/run does)")
        }
        self.port = port
        self.viaName = "ck-proxy-\(port)"
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("tinyproxy-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var config = [
            "Port \(port)", "Listen 127.0.0.1", "Timeout 30", "MaxClients 64", "LogLevel Info",
            "Allow 127.0.0.1", "ViaProxyName \"\(viaName)\"", "PidFile \"\(folder.path)/tinyproxy.pid\"",
        ]
        if let basicAuth { config.append("BasicAuth \(basicAuth.user) \(basicAuth.password)") }
        let configFile = folder.appendingPathComponent("tinyproxy.conf")
        try Data((config.joined(separator: "\n") + "\n").utf8).write(to: configFile)

        process.executableURL = executable
        process.arguments = ["-d", "-c", configFile.path]
        let pipe = Pipe()
        process.standardError = pipe
        process.standardOutput = pipe
        output.collect(pipe, of: process)
        try process.run()
        try? pipe.fileHandleForWriting.close()
        let (ready, printed) = output.wait(timeout: timeout) { $0.contains("Accepting connections") }
        guard ready else {
            stop()
            throw TinyproxyError(
                message: "tinyproxy did not accept connections within \(timeout) s: \(printed)",
                portTaken: printed.contains("Address already in use") || printed.contains("Could not create listening"))
        }
    }

    deinit {
        stop()
    }

    /// What tinyproxy logged so far (a line per connection and per forwarded request, among others).
    var log: String { output.printed }

    /// Whether tinyproxy logged `text` within `seconds`: it may write a request's line after it answered it,
    /// and its log is read as it comes.
    func logged(_ text: String, within seconds: TimeInterval = 10) async -> Bool {
        await output.waited(timeout: seconds * testTimeScale) { $0.contains(text) }.done
    }

    /// Stops this tinyproxy (the process this object started, by its id) and removes its folder. SIGKILL:
    /// on SIGTERM it lingers for seconds while a client (libcurl's pool) keeps a connection open.
    func stop() {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        _ = output.wait(timeout: 5) { _ in false }
        try? FileManager.default.removeItem(at: folder)
    }

    private static var executable: URL? {
        ["/usr/bin/tinyproxy", "/usr/sbin/tinyproxy", "/usr/local/bin/tinyproxy"]
            .first { FileManager.default.isExecutableFile(atPath: $0) }
            .map { URL(fileURLWithPath: $0) }
    }

}

struct TinyproxyError: Error, CustomStringConvertible {
    let message: String
    var portTaken = false
    var description: String { message }
}
