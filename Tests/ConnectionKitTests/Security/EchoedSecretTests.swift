import ConnectionKit
import ConnectionKitTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A server that echoes a secret it received, with a combining mark after it, so that the secret and the
/// mark form one grapheme: body previews and echoed headers still scrub the secret. Run on both transports.
@Suite(.offThePool, .timeLimit(.minutes(2))) struct EchoedSecretTests {
    /// Whether the UTF-8 of `text` contains that of `part`: `String.contains` compares graphemes, and a
    /// secret followed by a combining mark is not one of its graphemes.
    private static func bytes(of text: String, contain part: String) -> Bool {
        Data(text.utf8).range(of: Data(part.utf8)) != nil
    }

    @Test(
        "a secret echoed with a combining mark after it is still scrubbed from debug output and the history",
        arguments: ["\u{301}", "\u{20DD}"])
    func aSecretFollowedByACombiningMarkIsScrubbed(mark: String) async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        let token = "sk-live-EchoedToken42"
        server.route("/echo") { request in
            let seen = (request.header("X-Api-Key") ?? "none") + mark
            var response = TestResponse.text("key=\(seen) end")
            response.headers.append(TestHeader("X-Echo", seen))
            return response
        }
        DebugCapture.install()
        let request = HostileRequest(
            HostileHooks(
                url: server.url("/echo"), headers: ["X-Api-Key": token], secretHeaders: ["X-Api-Key"],
                debugOutput: true))
        let endings = Endings(request)
        request.start()
        let body = String(decoding: try await endings.value(), as: UTF8.self)
        #expect(Self.bytes(of: body, contain: token), "the echo reached the app")
        let debug = DebugCapture.blocks(for: request.identifier).joined(separator: "\n")
        let record = try #require(
            ConnectionRegistry.shared.history().last(where: { $0.identifier == request.identifier }))
        let echoed = record.responseHeaderFields.first { $0.name == "X-Echo" }?.value ?? ""
        for (place, text) in [
            ("debug output", debug), ("history preview", record.responseBodyPreview ?? ""),
            ("history header", echoed),
        ] {
            #expect(!Self.bytes(of: text, contain: "EchoedToken42"), "\(place) leaks the secret: \(text)")
        }
        #expect(Self.bytes(of: debug, contain: "key=<redacted>\(mark) end"), "\(debug)")
    }
}
