import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A temporary folder with a test CA and certificates made by `openssl`, and the real TLS servers
/// (nginx, `openssl s_server`) started on loopback for one test. ``stop()`` kills them and removes the folder.
final class TLSFixture: @unchecked Sendable {
    // Safe: `servers` is only touched under `lock`; everything else is set in `init`.
    let folder: URL
    /// The client key's passphrase: what no error message may contain.
    let passphrase = "pass-\(UUID().uuidString)"
    private let lock = NSLock()
    private var servers: [Subprocess] = []

    /// `makingCertificates: false` for a plain-HTTP server (``startStaticFileNginx()``), which needs none.
    init(makingCertificates: Bool = true) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("ck-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: folder.appendingPathComponent("newcerts"), withIntermediateDirectories: true)
        if makingCertificates { try makeCertificates() }
    }

    func file(_ name: String) -> URL { folder.appendingPathComponent(name) }

    // MARK: - Certificates

    private func makeCertificates() throws {
        try Data().write(to: file("index.txt"))
        try Data("1000\n".utf8).write(to: file("serial"))
        try Data(Self.config(folder: folder.path).utf8).write(to: file("openssl.cnf"))
        // The CA, and a second one that nothing trusts.
        for name in ["ca", "rogue-ca"] {
            try openssl(
                "req", "-x509", "-new", "-config", file("openssl.cnf").path, "-extensions", "ca_ext", "-newkey", "ec",
                "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", file("\(name).key").path, "-out",
                file("\(name).pem").path, "-days", "3", "-subj", "/CN=ConnectionKit \(name)")
        }
        try issue("server", extensions: "server_ext")
        try issue("server2", extensions: "server_ext")
        try issue("wronghost", extensions: "wronghost_ext")
        try issue("expired", extensions: "server_ext", dates: ("20200101000000Z", "20200201000000Z"))
        try issue("client", extensions: "client_ext")
        try issue("rogue-client", extensions: "client_ext", ca: "rogue-ca")
        // The client key, encrypted with the passphrase (PKCS#8).
        try openssl(
            "pkey", "-in", file("client.key").path, "-aes256", "-passout", "pass:\(passphrase)", "-out",
            file("client-encrypted.key").path)
    }

    /// A key and a certificate `<name>.key`, `<name>.pem` signed by `ca`, valid now unless `dates` say otherwise.
    private func issue(
        _ name: String, extensions: String, dates: (String, String)? = nil, ca: String = "ca"
    ) throws {
        try openssl(
            "req", "-new", "-config", file("openssl.cnf").path, "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
            "-nodes", "-keyout", file("\(name).key").path, "-out", file("\(name).csr").path, "-subj", "/CN=\(name)")
        var arguments = [
            "ca", "-batch", "-notext", "-config", file("openssl.cnf").path, "-cert", file("\(ca).pem").path,
            "-keyfile", file("\(ca).key").path, "-in", file("\(name).csr").path, "-out", file("\(name).pem").path,
            "-extensions", extensions,
        ]
        if let dates {
            arguments += ["-startdate", dates.0, "-enddate", dates.1]
        } else {
            arguments += ["-days", "3"]
        }
        try openssl(arguments)
    }

    private static func config(folder: String) -> String {
        """
        [req]
        distinguished_name = dn
        prompt = no
        [dn]
        CN = ConnectionKit
        [ca]
        default_ca = test_ca
        [test_ca]
        database = \(folder)/index.txt
        new_certs_dir = \(folder)/newcerts
        serial = \(folder)/serial
        default_md = sha256
        policy = any
        unique_subject = no
        [any]
        commonName = supplied
        [ca_ext]
        basicConstraints = critical, CA:TRUE
        keyUsage = critical, keyCertSign, cRLSign
        subjectKeyIdentifier = hash
        [server_ext]
        basicConstraints = CA:FALSE
        keyUsage = critical, digitalSignature
        extendedKeyUsage = serverAuth
        subjectAltName = IP:127.0.0.1, DNS:localhost
        [wronghost_ext]
        basicConstraints = CA:FALSE
        keyUsage = critical, digitalSignature
        extendedKeyUsage = serverAuth
        subjectAltName = DNS:wrong.example
        [client_ext]
        basicConstraints = CA:FALSE
        keyUsage = critical, digitalSignature
        extendedKeyUsage = clientAuth

        """
    }

    /// The pin of a certificate's public key: base64 of the SHA-256 of its SubjectPublicKeyInfo, computed
    /// with the command docs/tls.md gives.
    func pin(of certificate: String) throws -> String {
        let command =
            "openssl x509 -in '\(file(certificate).path)' -pubkey -noout | openssl pkey -pubin -outform der "
            + "| openssl dgst -sha256 -binary | openssl base64"
        return try run("/bin/sh", ["-c", command]).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @discardableResult
    private func openssl(_ arguments: String...) throws -> String { try openssl(arguments) }

    @discardableResult
    private func openssl(_ arguments: [String]) throws -> String { try run("/usr/bin/openssl", arguments) }

    /// Runs a short command to its end (60 s at most); its standard output, or an error with its
    /// standard error.
    private func run(_ executable: String, _ arguments: [String]) throws -> String {
        let command = "\(executable) \(arguments.joined(separator: " "))"
        let finished: FinishedProcess
        do {
            finished = try ProcessOutput.run(executable, arguments, timeout: 60)
        } catch is TestTimeout {
            throw FixtureError(message: "\(command) did not finish within 60 s")
        }
        guard finished.status == 0 else { throw FixtureError(message: "\(command) failed: " + finished.errors) }
        return finished.output
    }

    // MARK: - Servers

    /// The ports of ``startNginx(redirectTarget:)``'s servers, all on 127.0.0.1 and HTTP/2-capable.
    struct NginxPorts: Sendable {
        /// `server.pem` (trusted by `ca.pem`, names 127.0.0.1 and localhost); `/to-http` redirects to plain HTTP.
        let good: Int
        /// The same, with `server2.pem` (another key: for pin rotation).
        let rotated: Int
        let expired: Int
        let wrongHost: Int
        /// `server.pem`, TLS 1.2 only.
        let tls12Only: Int
    }

    /// One nginx with a server per certificate; `/` answers `ok <protocol>` (`HTTP/2.0` over ALPN h2).
    func startNginx(redirectTarget: URL) throws -> NginxPorts {
        let reservations = try (0..<5).map { _ in try LoopbackPort(reusable: true) }
        let ports = NginxPorts(
            good: reservations[0].port, rotated: reservations[1].port, expired: reservations[2].port,
            wrongHost: reservations[3].port, tls12Only: reservations[4].port)
        func server(_ port: Int, _ certificate: String, protocols: String = "TLSv1.2 TLSv1.3") -> String {
            """
                server {
                    listen 127.0.0.1:\(port) ssl http2 reuseport;
                    ssl_certificate \(file("\(certificate).pem").path);
                    ssl_certificate_key \(file("\(certificate).key").path);
                    ssl_protocols \(protocols);
                    location = /to-http { return 302 \(redirectTarget.absoluteString); }
                    location / { return 200 "ok $server_protocol"; }
                }

            """
        }
        try startNginx(
            "nginx", connections: 512,
            http: """
                access_log off;
                default_type text/plain;
                \(server(ports.good, "server"))\(server(ports.rotated, "server2"))\(server(ports.expired, "expired"))\
                \(server(ports.wrongHost, "wronghost"))\(server(ports.tls12Only, "server", protocols: "TLSv1.2"))
                """, ports: reservations.map(\.port))
        // nginx listens with SO_REUSEPORT beside the reservations, which held the ports until now.
        reservations.forEach { $0.release() }
        return ports
    }

    /// Writes `<name>.conf` and starts nginx with it: in the foreground, its pid, error log and temporary
    /// folders inside the fixture's folder, around the `http` block's own `directives`.
    private func startNginx(_ name: String, connections: Int, http directives: String, ports: [Int]) throws {
        let temporary = folder.path
        let configuration = """
            daemon off;
            master_process off;
            pid \(temporary)/\(name).pid;
            error_log \(temporary)/nginx-error.log warn;
            events { worker_connections \(connections); }
            http {
                client_body_temp_path \(temporary)/body;
                proxy_temp_path \(temporary)/proxy;
                fastcgi_temp_path \(temporary)/fastcgi;
                uwsgi_temp_path \(temporary)/uwsgi;
                scgi_temp_path \(temporary)/scgi;
            \(directives)
            }

            """
        try Data(configuration.utf8).write(to: file("\(name).conf"))
        try startServer(
            "/usr/sbin/nginx",
            ["-e", "\(temporary)/nginx-error.log", "-p", temporary, "-c", file("\(name).conf").path],
            ports: ports)
    }

    /// nginx asking for a client certificate signed by `ca.pem`, over HTTP/1.1 with keep-alive, so that
    /// a connection stays in the client's pool between requests; `/` answers `ok <client subject>`.
    func startMutualTLSNginx() throws -> Int {
        let reservation = try LoopbackPort(reusable: true)
        try startNginx(
            "nginx-mtls", connections: 64,
            http: """
                access_log off;
                default_type text/plain;
                server {
                    listen 127.0.0.1:\(reservation.port) ssl reuseport;
                    ssl_certificate \(file("server.pem").path);
                    ssl_certificate_key \(file("server.key").path);
                    ssl_client_certificate \(file("ca.pem").path);
                    ssl_verify_client on;
                    location / { return 200 "ok $ssl_client_s_dn"; }
                }
                """, ports: [reservation.port])
        reservation.release()
        return reservation.port
    }

    /// nginx over plain HTTP/1.1 serving the folder's `static/` files as it does by default (an `ETag` and a
    /// `Last-Modified` on each, `304` to a matching `If-None-Match` / `If-Modified-Since`), logging each
    /// request to `access.log` as `<method> <uri> <status> inm=<If-None-Match> ims=<If-Modified-Since>`.
    func startStaticFileNginx() throws -> Int {
        let reservation = try LoopbackPort(reusable: true)
        try FileManager.default.createDirectory(at: file("static"), withIntermediateDirectories: true)
        try startNginx(
            "nginx-static", connections: 64,
            http: """
                log_format conditional escape=none '$request_method $uri $status inm=$http_if_none_match ims=$http_if_modified_since';
                access_log \(folder.path)/access.log conditional;
                default_type application/octet-stream;
                server {
                    listen 127.0.0.1:\(reservation.port) reuseport;
                    root \(folder.path)/static;
                }
                """, ports: [reservation.port])
        reservation.release()
        return reservation.port
    }

    /// nginx storing what is `PUT` under the folder's `static/` (its DAV module: `201` for a new file), any size,
    /// chunked or not, logging each request to `access.log` as
    /// `<method> <uri> <status> <protocol> te=<Transfer-Encoding> cl=<Content-Length>`: over plain HTTP/1.1, or with
    /// `tls` over TLS with HTTP/2 offered (ALPN h2), with the fixture's `server` certificate.
    func startUploadNginx(tls: Bool = false) throws -> Int {
        let reservation = try LoopbackPort(reusable: true)
        try FileManager.default.createDirectory(at: file("static"), withIntermediateDirectories: true)
        let secure =
            tls
            ? """
            ssl http2;
                    ssl_certificate \(file("server.pem").path);
                    ssl_certificate_key \(file("server.key").path);
            """ : ";"
        try startNginx(
            "nginx-upload", connections: 64,
            http: """
                log_format upload escape=none '$request_method $uri $status $server_protocol te=$http_transfer_encoding cl=$http_content_length';
                access_log \(folder.path)/access.log upload;
                server {
                    listen 127.0.0.1:\(reservation.port) reuseport \(secure)
                    root \(folder.path)/static;
                    client_max_body_size 0;
                    dav_methods PUT;
                }
                """, ports: [reservation.port])
        reservation.release()
        return reservation.port
    }

    /// The lines of `access.log` once it has at least `count` (nginx writes a line after the response is
    /// sent, so a client can see its answer first), or what it has after 10 s.
    func accessLog(atLeast count: Int) -> [String] {
        let deadline = Date().addingTimeInterval(10)
        var lines: [String] = []
        repeat {
            let text = (try? String(contentsOf: file("access.log"), encoding: .utf8)) ?? ""
            lines = text.split(separator: "\n").map(String.init)
            if lines.count >= count { break }
            // nginx gives no event for a written log line; the file is polled.
            usleep(20_000)
        } while Date() < deadline
        return lines
    }

    /// `openssl s_server` asking for a client certificate signed by `ca.pem` (`-Verify`): a handshake
    /// without one, or with another, fails. Answers with its status page (`-www`).
    func startMutualTLSServer() throws -> Int {
        let reservation = try LoopbackPort(reusable: false)
        let port = reservation.port
        // s_server cannot share the port: the reservation ends just before it starts.
        reservation.release()
        try startServer(
            "/usr/bin/openssl",
            [
                "s_server", "-accept", "127.0.0.1:\(port)", "-cert", file("server.pem").path, "-key",
                file("server.key").path, "-CAfile", file("ca.pem").path, "-Verify", "1", "-verify_return_error",
                "-www", "-quiet",
            ], ports: [port])
        return port
    }

    private func startServer(_ executable: String, _ arguments: [String], ports: [Int]) throws {
        let process = Subprocess()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = try FileHandle(forWritingTo: createEmpty("server-\(UUID().uuidString).log"))
        try process.run()
        lock.withLock { servers.append(process) }
        for port in ports {
            try waitUntilListening(port, process: process)
        }
    }

    private func createEmpty(_ name: String) throws -> URL {
        let url = file(name)
        try Data().write(to: url)
        return url
    }

    /// Waits (10 s at most) until `port` accepts a TCP connection.
    private func waitUntilListening(_ port: Int, process: Subprocess) throws {
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            guard process.isRunning else {
                let log = (try? String(contentsOf: file("nginx-error.log"), encoding: .utf8)) ?? ""
                throw FixtureError(message: "\(process.executableURL?.lastPathComponent ?? "server") exited: \(log)")
            }
            if LoopbackPort.accepts(port) { return }
            // A server process gives no readiness event to wait on; its port is polled.
            usleep(20_000)
        }
        throw FixtureError(message: "nothing listened on 127.0.0.1:\(port) within 10 s")
    }

    /// Kills the servers (by their process ids) and removes the folder.
    func stop() {
        let running = lock.withLock {
            defer { servers = [] }
            return servers
        }
        for process in running where process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: folder)
    }
}

struct FixtureError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}

/// What a test function calls: each runs its `openssl` commands and waits for its servers to listen on a
/// thread of its own, not the test's pool thread (see `onOwnThread`). Inside those threads the blocking
/// methods above are the ones called (a synchronous context chooses them over these).
extension TLSFixture {
    /// A fixture (see ``init(makingCertificates:)``), made off the pool.
    static func made(makingCertificates: Bool = true) async throws -> TLSFixture {
        try await onOwnThread { try TLSFixture(makingCertificates: makingCertificates) }
    }

    func startNginx(redirectTarget: URL) async throws -> NginxPorts {
        try await onOwnThread { try self.startNginx(redirectTarget: redirectTarget) }
    }

    func startMutualTLSNginx() async throws -> Int {
        try await onOwnThread { try self.startMutualTLSNginx() }
    }

    func startStaticFileNginx() async throws -> Int {
        try await onOwnThread { try self.startStaticFileNginx() }
    }

    func startMutualTLSServer() async throws -> Int {
        try await onOwnThread { try self.startMutualTLSServer() }
    }

    func accessLog(atLeast count: Int) async -> [String] {
        await onOwnThread { self.accessLog(atLeast: count) }
    }
}
