import ConnectionKit
import ConnectionKitInspector
import Foundation

let options: Options
do {
    options = try Options.parse(Array(CommandLine.arguments.dropFirst()))
} catch {
    Terminal.error("\(error)\n\n\(Options.usage)")
    exit(2)
}

if options.command == .help {
    Terminal.line(Options.usage)
    exit(0)
}

// `--debug`: every request prints a request block and a response block (secrets redacted) to
// standard error.
ConnectionDebug.isEnabled = options.debug

// `--transport libcurl`: the one line that moves every request of the app onto libcurl.
if options.libcurl {
    do {
        ConnectionTransport.default = try .libcurl()
    } catch {
        Terminal.error("\(error)")
        exit(1)
    }
}

// `--inspect`: the registry's live requests, history and statistics in a browser, on 127.0.0.1 only.
let inspector = ConnectionInspector()
if options.inspect {
    do {
        Terminal.line("Inspector: open \(try inspector.start().absoluteString)")
    } catch {
        Terminal.error("could not start the inspector: \(error)")
        exit(1)
    }
}

/// The embedded demo server, unless `--base-url` points elsewhere.
let demoServer: DemoServer?
if let baseURL = options.baseURL {
    demoServer = nil
    AppConfiguration.shared.baseURL = baseURL
} else {
    do {
        let server = try DemoServer.started()
        demoServer = server
        AppConfiguration.shared.baseURL = server.baseURL
        Terminal.line("Tag Along demo API on \(server.baseURL.absoluteString)")
    } catch {
        Terminal.error("could not start the demo server: \(error)")
        exit(1)
    }
}

/// Where the app keeps its credential file and offline queue: a fresh folder for the demo (removed at the
/// end), a lasting one for the other commands, so that `login` then `post` works across runs.
let isDemo = options.command == .demo
let dataDirectory = FileManager.default.temporaryDirectory
    .appendingPathComponent(isDemo ? "TagAlong-demo-\(UUID().uuidString)" : "TagAlong")
try? FileManager.default.createDirectory(at: dataDirectory, withIntermediateDirectories: true)
AppConfiguration.shared.credentials = FileCredentialStore(
    fileURL: dataDirectory.appendingPathComponent("credentials.json"))

/// Read responses are kept here, so that the events list still shows when the server cannot be reached.
do {
    AppConfiguration.shared.httpCache = try HTTPCache(
        folder: dataDirectory.appendingPathComponent("http-cache"), maximumBytes: 5 << 20)
} catch {
    Terminal.error("could not open the HTTP cache, reading from the network only: \(error.localizedDescription)")
}

/// Posts made while the server cannot be reached wait here, on disk, across runs.
let outbox: OfflineQueue
do {
    outbox = try Outbox.open(in: dataDirectory.appendingPathComponent("outbox"))
} catch {
    Terminal.error("could not open the offline queue: \(error.localizedDescription)")
    exit(1)
}

let succeeded: Bool
switch options.command {
case .demo:
    if let demoServer {
        succeeded = await Demo(
            server: demoServer, outbox: outbox, workDirectory: dataDirectory, debug: options.debug,
            pauseBetweenSteps: options.inspect ? 2 : 0
        ).run()
    } else {
        succeeded = false
    }
case .events:
    succeeded = await Commands.events()
case .login(let user, let password):
    succeeded = await Commands.login(user: user, password: password)
case .post(let text):
    if case .failed = await Commands.post(text: text, via: outbox) {
        succeeded = false
    } else {
        succeeded = true
    }
case .download(let destination):
    let file =
        destination.map { URL(fileURLWithPath: $0) }
        ?? URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent("flyer.pdf")
    succeeded = await Commands.download(to: file, debug: options.debug)
case .follow(let count):
    succeeded = await Commands.follow(count: count)
case .help:
    succeeded = true
}

if options.debug {
    Commands.printRegistry()
}
if options.inspect {
    Terminal.line("The inspector stays open: press Return to quit.")
    _ = readLine()
    inspector.stop()
}
outbox.close()
demoServer?.stop()
if isDemo {
    try? FileManager.default.removeItem(at: dataDirectory)
}
exit(succeeded ? 0 : 1)
