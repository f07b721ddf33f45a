import ConnectionKit
import ConnectionKitTesting
import Foundation

let server = try DemoServer.start()
AppConfiguration.shared.baseURL = server.baseURL
Terminal.line("Tag Along demo API on \(server.baseURL.absoluteString)")

let exitCode: Int32
do {
    let events = try await FetchEvents().value()
    Terminal.line("Events:")
    for event in events {
        Terminal.line("  \(event.date)  \(event.name)")
    }
    exitCode = 0
} catch {
    exitCode = 1
}
server.stop()
exit(exitCode)
