import ConnectionKit
import ConnectionKitTesting
import Foundation
import Testing

/// A secret header, a secret query item, a Basic `Authorization` and a `Set-Cookie` never reach the
/// debug sink, a cURL string, a snapshot, the debug dump or an event, although the server gets them.
@Suite(.offThePool, .exclusive, .timeLimit(.minutes(20))) struct RegistryRedactionTests {
    let apiKey = "key-\(UUID().uuidString)"
    let token = "tok-\(UUID().uuidString)"
    let password = "pw-\(UUID().uuidString)"
    let cookie = "sid-\(UUID().uuidString)"

    /// Every form a secret could leak in: the Basic header value and the raw values.
    var secrets: [String] {
        let basic = Authorization.basic(username: "ada", password: password).headerValue
        return [apiKey, token, password, cookie, basic, String(basic.dropFirst("Basic ".count))]
    }

    func leaks(in text: String) -> [String] { secrets.filter { text.contains($0) } }

    func dumped(_ value: Any) -> String {
        var text = ""
        dump(value, to: &text)
        return text
    }

    @Test func secretsNeverReachTheSinkCURLSnapshotsDumpOrEvents() async throws {
        DebugCapture.install()
        let server = try TestServer.started()
        defer { server.stop() }
        let cookie = self.cookie
        server.route("/echo") { request in
            var response = TestResponse.echo(request)
            response.headers.append(TestHeader("Set-Cookie", "session=\(cookie)"))
            return response
        }
        server.route("/hang") { _ in TestResponse(fault: .neverRespond) }
        let headers = ["X-Api-Key": apiKey, "Cookie": "c=\(cookie)", "Accept": "application/json"]
        let credentials = Authorization.basic(username: "ada", password: password)

        let stream = ConnectionRegistry.shared.events
        let eventTexts = Task {
            var texts: [String] = []
            var ended = 0
            for await event in stream where event.snapshot.typeName == "DebugProbe" {
                texts.append(dumped(event) + event.description)
                if event.kind.isEnd { ended += 1 }
                if ended == 2 { break }
            }
            return texts
        }

        // One request that completes, one that is live while snapshots are taken, then cancelled.
        let done = DebugProbe(server.url("/echo?token=\(token)&page=1"), headers: headers, authorization: credentials)
        let live = DebugProbe(server.url("/hang?token=\(token)"), headers: headers, authorization: credentials)
        let endings = EndingRecorder()
        endings.track(done)
        endings.track(live)
        var texts = [done.cURLDescription, live.cURLDescription]
        done.start()
        live.start()
        texts += ConnectionRegistry.shared.snapshot().map { dumped($0) }
        texts.append(ConnectionRegistry.shared.debugDump())
        texts.append(live.debugDescription)
        live.cancel()
        guard await endings.ended() else { return }
        texts += [done.cURLDescription, live.cURLDescription, done.debugDescription]
        texts += await eventTexts.value
        texts += DebugCapture.all

        // The secrets did go out on the wire (so the check below can fail).
        let received = server.receivedRequests("/echo").first
        #expect(received?.header("X-Api-Key") == apiKey)
        #expect(received?.header("Authorization") == credentials.headerValue)
        #expect(received?.queryItems["token"] == token)

        let blocks = DebugCapture.blocks(for: done.identifier)
        #expect(blocks.count == 2, "a request block and a response block")
        #expect(blocks.joined().contains("Authorization: <redacted>"))
        #expect(blocks.joined().contains("X-Api-Key: <redacted>"))
        #expect(blocks.joined().contains("token=<redacted>"))
        #expect(blocks.joined().contains("Set-Cookie: <redacted>"))
        #expect(done.cURLDescription.contains("'Authorization: <redacted>'"))
        for text in texts {
            #expect(leaks(in: text).isEmpty, "a secret leaked in: \(text)")
        }
    }
}
