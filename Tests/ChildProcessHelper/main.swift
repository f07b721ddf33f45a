// A child process for tests that need a second process or a process environment of their own.
//
// Usage: ChildProcessHelper write-credentials <file> <account prefix> <count>
//            Stores <count> credentials `<prefix>-<i>` = `value-<i>` in a FileCredentialStore on <file>, one write
//            each, after a line `READY` on stdout and a line on stdin (so that two helpers start together).
//        ChildProcessHelper default-headers
//            Prints `DefaultHeaders.standard(appName: "App", appVersion: "1")` as `name: value` lines, sorted.
import ConnectionKit
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("ChildProcessHelper: \(message)\n".utf8))
    exit(2)
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
default:
    fail("unknown command \(arguments.first ?? "(none)")")
}
