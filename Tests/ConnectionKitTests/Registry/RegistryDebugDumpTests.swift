import ConnectionKit
import ConnectionKitTesting
import Foundation
import Testing

@Suite(.offThePool, .exclusive, .timeLimit(.minutes(20))) struct RegistryDebugDumpTests {
    @Test func oneLinePerLiveRequestInStartOrder() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/hang") { _ in TestResponse(fault: .neverRespond) }
        let first = DumpProbe(server.url("/hang?n=1"))
        let second = DumpProbe(server.url("/hang?n=2"), method: .delete)
        let endings = EndingRecorder()
        endings.track(first)
        endings.track(second)
        first.start()
        second.start()
        let dump = ConnectionRegistry.shared.debugDump()
        first.cancel()
        second.cancel()
        _ = await endings.ended()

        let lines = dump.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("ConnectionRegistry: ") == true)
        #expect(lines.dropFirst().first?.hasPrefix("#  ") == true)
        let mine = lines.filter { $0.contains("DumpProbe") }
        #expect(mine.count == 2)
        #expect(mine.first?.contains(first.identifier.uuidString) == true)
        #expect(mine.first?.contains(server.url("/hang?n=1").absoluteString) == true)
        #expect(mine.first?.contains(" running ") == true)
        #expect(mine.last?.contains(" DELETE ") == true)
        #expect(mine.last?.contains(second.identifier.uuidString) == true)
        #expect(!ConnectionRegistry.shared.debugDump().contains("DumpProbe"))
    }
}
