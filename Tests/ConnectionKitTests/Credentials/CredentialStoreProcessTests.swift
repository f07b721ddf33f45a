import ConnectionKit
import Foundation
import Testing

/// `FileCredentialStore` shared by two processes: every write of each survives.
@Suite("Credential store across processes", .offThePool, .exclusive, .timeLimit(.minutes(10)))
struct CredentialStoreProcessTests {
    @Test func twoProcessesWritingAThousandCredentialsEachToOneFileLoseNone() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "CredentialStoreProcessTests-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("credentials.json")
        let writes = 1000
        let writers = try ["first", "second"].map {
            try ChildProcess(["write-credentials", file.path, $0, String(writes)])
        }
        // Both are loaded and waiting before either writes, so that their writes overlap.
        for writer in writers { try #require(await writer.waitForLine("READY", timeout: 60)) }
        for writer in writers { writer.send("go") }
        for writer in writers {
            let ending = await writer.finish(timeout: 150)
            #expect(ending.status == 0, "helper output: \(ending.printed)")
            #expect(ending.printed.hasSuffix("DONE\n"))
        }
        let stored = try JSONDecoder().decode([String: String].self, from: Data(contentsOf: file))
        #expect(stored.count == 2 * writes)
        let missing = ["first", "second"].flatMap { prefix in
            (0..<writes).filter { stored["\(prefix)-\($0)"] != "value-\($0)" }.map { "\(prefix)-\($0)" }
        }
        let lost = missing.count
        #expect(lost == 0, "e.g. \(missing.prefix(5))")
    }
}
