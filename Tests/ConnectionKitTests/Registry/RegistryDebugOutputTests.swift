import ConnectionKitTesting
import Foundation
import Testing

@testable import ConnectionKit

/// DebugProbe's settings under another name, so that these tests find only their own blocks.
final class VerboseProbe: DebugProbe, @unchecked Sendable {}  // Safe: no state of its own.

@Suite(.offThePool, .serialized, .exclusive, .timeLimit(.minutes(20))) struct RegistryDebugOutputTests {
    @Test func aRequestBlockPerAttemptAndAResponseBlockAtTheEnd() async throws {
        DebugCapture.install()
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/echo") { .echo($0) }
        let body = Data(String(repeating: "a", count: 3000).utf8)
        let request = VerboseProbe(
            server.url("/echo?page=1"), method: .post, headers: ["Content-Type": "text/plain"], body: body)
        let endings = EndingRecorder()
        endings.track(request)
        request.start()
        guard await endings.ended() else { return }

        let blocks = DebugCapture.blocks(for: request.identifier)
        #expect(blocks.count == 2)
        let sent = blocks.first ?? ""
        let limit = ConnectionDebug.defaultBodyPreviewLimit
        #expect(sent.hasPrefix("[ConnectionKit] → VerboseProbe \(request.identifier) attempt 1\n"))
        #expect(sent.contains("\n  POST \(server.url("/echo?page=1").absoluteString)\n"))
        #expect(sent.contains("\n  Content-Type: text/plain\n"))
        #expect(
            sent.contains(
                "\n  body (3000 bytes, first \(limit) shown): " + String(repeating: "a", count: limit) + "…\n"))

        let received = blocks.last ?? ""
        let length = request.urlResponse?.expectedContentLength ?? -1
        #expect(received.hasPrefix("[ConnectionKit] ← VerboseProbe \(request.identifier) finished 200 in "))
        #expect(received.contains("\n  result: Data (\(length) bytes)\n"))
        #expect(received.contains("\n  Content-Type: application/json\n"))
        #expect(received.contains("\n  body (\(length) bytes, first \(limit) shown): {"))
    }

    @Test func aFailureShowsItsStatusAndError() async throws {
        DebugCapture.install()
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/broken") { _ in .status(500, body: "database down") }
        let request = VerboseProbe(server.url("/broken"))
        let endings = EndingRecorder()
        endings.track(request)
        request.start()
        guard await endings.ended() else { return }
        let received = DebugCapture.blocks(for: request.identifier).last ?? ""
        #expect(received.contains("failed 500 in "))
        #expect(received.contains("\n  error: ConnectionError.unacceptableStatusCode"))
        #expect(received.contains("\n  body (13 bytes): database down\n"))
    }

    @Test func theClassHookWinsOverTheGlobalSwitch() async throws {
        DebugCapture.install()
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/ok") { _ in .text("ok") }
        #expect(!ConnectionDebug.isEnabled, "off by default")
        let quiet = SecretProbe(server.url("/ok"))
        let beforeSwitch = EndingRecorder()
        beforeSwitch.track(quiet)
        quiet.start()
        guard await beforeSwitch.ended() else { return }
        #expect(DebugCapture.blocks(for: quiet.identifier).isEmpty)

        ConnectionDebug.isEnabled = true
        let follower = SecretProbe(server.url("/ok"))
        let silent = SilentProbe(server.url("/ok"))
        let endings = EndingRecorder()
        endings.track(follower)
        endings.track(silent)
        follower.start()
        silent.start()
        ConnectionDebug.isEnabled = false
        guard await endings.ended() else { return }
        #expect(DebugCapture.blocks(for: follower.identifier).count == 2, "nil follows the global switch")
        #expect(DebugCapture.blocks(for: silent.identifier).isEmpty, "false wins over the global switch")
    }

    @Test func bodyLinesCutAtTheLimitHideBinaryAndScrubSecrets() {
        #expect(DebugOutput.bodyLine(Data("héllo".utf8), totalCount: 6, secrets: []) == "body (6 bytes): héllo")
        // The cut falls inside "é": the partial character is dropped, not shown as garbage.
        #expect(
            DebugOutput.bodyLine(Data("hé".utf8).prefix(2), totalCount: 3, secrets: [], limit: 2)
                == "body (3 bytes, first 2 shown): h…")
        #expect(DebugOutput.bodyLine(Data([0, 1, 2, 0xFF]), totalCount: 4, secrets: []) == "body (4 bytes): <binary>")
        #expect(DebugOutput.bodyLine(Data(), totalCount: 0, secrets: []) == "body (0 bytes)")
        #expect(
            DebugOutput.bodyLine(Data("a\nb".utf8), totalCount: 3, secrets: []) == "body (3 bytes): a\\nb")
        // A secret that straddles the cut is scrubbed before cutting, so no prefix of it shows.
        let text = Data("xxxxsecret-value tail".utf8)
        #expect(
            DebugOutput.bodyLine(text, totalCount: Int64(text.count), secrets: ["secret-value"], limit: 8)
                == "body (21 bytes, first 8 shown): xxxx<red…")
    }
}
