// A child process for tests that need a second process or a process environment of their own.
//
// Usage: ChildProcessHelper write-credentials <file> <account prefix> <count>
//            Stores <count> credentials `<prefix>-<i>` = `value-<i>` in a FileCredentialStore on <file>, one write
//            each, after a line `READY` on stdout and a line on stdin (so that two helpers start together).
//        ChildProcessHelper default-headers
//            Prints `DefaultHeaders.standard(appName: "App", appVersion: "1")` as `name: value` lines, sorted.
//        ChildProcessHelper get-over-libcurl <url>
//            GETs <url> over the libcurl transport (the proxy environment variables apply) and prints
//            `STATUS <code>` and `REMOTE <address>:<port>` from the request's metrics, or `ERROR <error>`.
//        ChildProcessHelper shutdown-shared <url> <count>
//            Starts <count> GETs of <url> on the shared client, shuts it down from `main` with
//            `shutdownAndWait`, then prints `ENDED <successes> <failures>`, and the kind of the error of a
//            start after the shutdown (`AFTER <kind>`) and of a start on `ConnectionTransport.urlSession` by
//            another client's class (`TRANSPORT <kind>`).
//        ChildProcessHelper save-to-file <url> <warm-up url> <destination> <sha256> urlSession|libcurl
//            Saves <warm-up url>, then <url> (checking its SHA-256) to <destination> with a DownloadRequest on
//            the transport named, and prints `GROWTH <KiB>`: the peak resident size during the second save
//            over the resident size before it (see SaveToFile.swift), or `ERROR <error>`.
//        ChildProcessHelper multipart-upload <url> <warm-up url> <file> urlSession|libcurl
//            Uploads a small form to <warm-up url>, then <file> in a multipart form to <url> on the transport named,
//            and prints `ANSWER <body>`, `PROGRESS <completed> <expected>` and `GROWTH <KiB>`: the peak resident
//            size during the second upload over the resident size before it (see MultipartUpload.swift), or
//            `ERROR <error>`.
//        ChildProcessHelper streamed-upload <url> <warm-up url> <bytes>
//            Streams 1 MiB to <warm-up url>, then <bytes> generated as they are sent (see StreamedUpload.swift) to
//            <url> over libcurl, with no declared length, and prints `ANSWER <body>`, `PROGRESS <completed>
//            <expected>`, `SECONDS <duration>` and `GROWTH <KiB>` (the peak resident size during the second upload
//            over the resident size before it), or `ERROR <error>`.
//        ChildProcessHelper awaited-endings <base url> urlSession|libcurl shared|own
//            Awaits with `value()` a run that ends in each way a run can end (see AwaitedEndings.swift) on the
//            shared client (its default transport set to the one named) or on a client of its own on it,
//            printing `START <path>` and `ENDED <path> <result>` for each.
//        ChildProcessHelper share-http-cache <folder> <fill byte> <count>
//            After `READY` and a line on stdin, stores and looks up <count> responses of one URL in an HTTPCache
//            on <folder> (see CacheSharing.swift), printing `LOG <line>` for each log line and `DONE <torn>`.
import ConnectionKit
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Runs `body` in a task while the main thread waits on a semaphore, as a tool whose main thread is not a
/// dispatch loop does: nothing serves the main queue meanwhile.
func runBlockingMain(_ body: @escaping @Sendable () async -> Void) {
    let done = DispatchSemaphore(value: 0)
    Task.detached {
        await body()
        done.signal()
    }
    done.wait()
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("ChildProcessHelper: \(message)\n".utf8))
    exit(2)
}

/// The transport an argument names: `libcurl` (which must load), else URLSession.
func transport(named name: String) -> ConnectionTransport {
    do {
        return name == "libcurl" ? try .libcurl() : .urlSession
    } catch {
        fail("libcurl cannot be loaded: \(error)")
    }
}

let arguments = CommandLine.arguments.dropFirst()
switch arguments.first {
case "write-credentials":
    let rest = Array(arguments.dropFirst())
    guard rest.count == 3, let count = Int(rest[2]) else { fail("write-credentials <file> <prefix> <count>") }
    let store = FileCredentialStore(fileURL: URL(fileURLWithPath: rest[0]))
    FileHandle.standardOutput.write(Data("READY\n".utf8))
    _ = readLine()
    for index in 0..<count {
        do {
            try store.setCredential("value-\(index)", for: "\(rest[1])-\(index)")
        } catch {
            fail("write \(index) failed: \(error)")
        }
    }
    FileHandle.standardOutput.write(Data("DONE\n".utf8))
case "default-headers":
    let headers = DefaultHeaders.standard(appName: "App", appVersion: "1")
    let lines = headers.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)\n" }
    FileHandle.standardOutput.write(Data(lines.joined().utf8))
case "get-over-libcurl":
    guard arguments.count == 2, let url = URL(string: arguments[arguments.startIndex + 1]) else {
        fail("get-over-libcurl <url>")
    }
    runBlockingMain {
        do {
            ConnectionTransport.default = try .libcurl()
            let request = BasicConnectionRequest(request: URLRequest(url: url))
            _ = try await request.value()
            let metrics = request.metrics.last
            let remote = "\(metrics?.remoteAddress ?? "-"):\(metrics?.remotePort.map(String.init) ?? "-")"
            let status = request.urlResponse?.statusCode ?? 0
            FileHandle.standardOutput.write(Data("STATUS \(status)\nREMOTE \(remote)\n".utf8))
        } catch {
            FileHandle.standardOutput.write(Data("ERROR \(error)\n".utf8))
        }
    }
case "shutdown-shared":
    let rest = Array(arguments.dropFirst())
    guard rest.count == 2, let url = URL(string: rest[0]), let count = Int(rest[1]) else {
        fail("shutdown-shared <url> <count>")
    }
    runBlockingMain { await SharedShutdown.run(url: url, count: count) }
case "save-to-file":
    let rest = Array(arguments.dropFirst())
    guard rest.count == 5, let url = URL(string: rest[0]), let warmUp = URL(string: rest[1]) else {
        fail("save-to-file <url> <warm-up url> <destination> <sha256> urlSession|libcurl")
    }
    let transport = transport(named: rest[4])
    runBlockingMain {
        await SaveToFile.run(
            url: url, warmUp: warmUp, destination: URL(fileURLWithPath: rest[2]), digest: rest[3],
            transport: transport)
    }
case "multipart-upload":
    let rest = Array(arguments.dropFirst())
    guard rest.count == 4, let url = URL(string: rest[0]), let warmUp = URL(string: rest[1]) else {
        fail("multipart-upload <url> <warm-up url> <file> urlSession|libcurl")
    }
    let transport = transport(named: rest[3])
    runBlockingMain {
        await MultipartUpload.run(url: url, warmUp: warmUp, file: URL(fileURLWithPath: rest[2]), transport: transport)
    }
case "streamed-upload":
    let rest = Array(arguments.dropFirst())
    guard rest.count == 3, let url = URL(string: rest[0]), let warmUp = URL(string: rest[1]), let count = Int64(rest[2])
    else {
        fail("streamed-upload <url> <warm-up url> <bytes>")
    }
    let transport = transport(named: "libcurl")
    runBlockingMain {
        await StreamedUpload.run(url: url, warmUp: warmUp, count: count, transport: transport)
    }
case "awaited-endings":
    let rest = Array(arguments.dropFirst())
    guard rest.count == 3, let base = URL(string: rest[0]), ["shared", "own"].contains(rest[2]) else {
        fail("awaited-endings <base url> urlSession|libcurl shared|own")
    }
    let chosen = transport(named: rest[1])
    let client: ConnectionClient
    if rest[2] == "shared" {
        ConnectionTransport.default = chosen
        client = .shared
    } else if rest[1] == "libcurl" {
        do {
            client = try ConnectionClient(checking: .libcurl, label: "awaited")
        } catch {
            fail("libcurl cannot be loaded: \(error)")
        }
    } else {
        client = ConnectionClient(label: "awaited")
    }
    runBlockingMain { await AwaitedEndings.run(paths: .init(base: base), client: client) }
case "share-http-cache":
    let rest = Array(arguments.dropFirst())
    guard rest.count == 3, let fill = UInt8(rest[1]), let count = Int(rest[2]) else {
        fail("share-http-cache <folder> <fill byte> <count>")
    }
    FileHandle.standardOutput.write(Data("READY\n".utf8))
    _ = readLine()
    let torn = CacheSharing.run(folder: URL(fileURLWithPath: rest[0]), fill: fill, count: count) { line in
        FileHandle.standardOutput.write(Data("LOG \(line)\n".utf8))
    }
    FileHandle.standardOutput.write(Data("DONE \(torn)\n".utf8))
default:
    fail("unknown command \(arguments.first ?? "(none)")")
}
