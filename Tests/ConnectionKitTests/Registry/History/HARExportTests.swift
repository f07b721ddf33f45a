import ConnectionKitTesting
import Foundation
import Testing

@testable import ConnectionKit

/// The HAR export loads in a real HAR consumer (haralyzer, from PyPI), marks live requests
/// incomplete and carries no secret.
@Suite(.offThePool, .timeLimit(.minutes(1))) struct HARExportTests {
    /// Loads the HAR file named by argv[1] with haralyzer and prints one JSON line per entry as
    /// haralyzer read it. Exits 3 when haralyzer is missing.
    static let checker = """
        import json, sys
        try:
            from haralyzer import HarParser, HarPage
        except ImportError:
            print("haralyzer is not installed: run `pip install haralyzer` (.ci/run does)")
            sys.exit(3)
        parser = HarParser.from_file(sys.argv[1])
        assert parser.har_data["version"] == "1.2"
        # The same version as the User-Agent's ConnectionKit/<version>.
        assert parser.har_data["creator"] == {"name": "ConnectionKit", "version": "\(DefaultHeaders.connectionKitVersion)"}
        page = HarPage("unknown", har_parser=parser)
        for entry in page.entries:
            print(json.dumps({
                "method": entry.request.method, "url": entry.url, "status": entry.status,
                "time": entry.time, "start": entry.startTime.isoformat(), "timings": entry.timings,
                "headers": {h["name"]: h["value"] for h in entry.request.headers},
                "incomplete": entry.raw_entry.get("_incomplete"), "type": entry.raw_entry.get("_typeName"),
            }))
        """

    struct Loaded: Decodable {
        var method: String
        var url: String
        var status: Int
        var time: Double
        var start: String
        var timings: [String: Double]
        var headers: [String: String]
        var incomplete: Bool?
        var type: String?
    }

    @Test func theExportLoadsInHaralyzerWithLiveRequestsIncomplete() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/ok") { _ in .text("fine") }
        server.route("/hang") { _ in TestResponse(fault: .neverRespond) }
        let token = "tok-\(UUID().uuidString)"
        let apiKey = "key-\(UUID().uuidString)"
        let done = HARProbe(server.url("/ok?token=\(token)&q=1"), headers: ["X-Api-Key": apiKey])
        let live = HARProbe(server.url("/hang"))
        let finished = EndingRecorder()
        finished.track(done)
        done.start()
        guard await finished.ended() else { return }
        let endings = EndingRecorder()
        endings.track(live)
        live.start()
        #expect(await server.waitForHits("/hang"), "the live request reached the server")
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("ck-\(UUID().uuidString).har")
        defer { try? FileManager.default.removeItem(at: file) }
        try ConnectionRegistry.shared.exportHAR(to: file)
        live.cancel()
        guard await endings.ended() else { return }

        let text = try String(contentsOf: file, encoding: .utf8)
        #expect(!text.contains(token) && !text.contains(apiKey), "no secret in the HAR")
        let lines = try await Self.haralyzer(file)
        let entries = try lines.map { try JSONDecoder().decode(Loaded.self, from: Data($0.utf8)) }
        let ended = try #require(entries.first { $0.url.contains("/ok?") && $0.type == "HARProbe" })
        #expect(ended.method == "GET")
        #expect(ended.status == 200)
        #expect(ended.incomplete == false)
        #expect(ended.url.contains("token=<redacted>"))
        #expect(ended.headers["X-Api-Key"] == "<redacted>")
        #expect(ended.time >= 0 && (ended.timings["wait"] ?? -1) >= 0)
        let running = try #require(entries.first { $0.url.hasSuffix("/hang") && $0.type == "HARProbe" })
        #expect(running.incomplete == true)
        #expect(running.status == 0)
    }

    @Test func anUnwritableDestinationThrowsAFileSystemErrorAndLeavesNothing() throws {
        let missing = FileManager.default.temporaryDirectory
            .appendingPathComponent("no-such-folder-\(UUID().uuidString)/out.har")
        #expect {
            try ConnectionRegistry.shared.exportHAR(to: missing)
        } throws: { error in
            guard let error = error as? ConnectionError, case .fileSystem = error.kind else { return false }
            return true
        }
        #expect(!FileManager.default.fileExists(atPath: missing.path))
    }

    /// haralyzer's reading of `file`, one JSON line per entry; records an issue (never skips) when
    /// python3 or haralyzer is missing.
    static func haralyzer(_ file: URL) async throws -> [String] {
        // python3 runs for a second or so: waited for on a thread of its own (see `onOwnThread`).
        let finished = try await onOwnThread {
            try ProcessOutput.run("/usr/bin/env", ["python3", "-c", checker, file.path], timeout: 60)
        }
        guard finished.status == 0 else {
            Issue.record(
                "haralyzer could not load the HAR (exit \(finished.status)): \(finished.output)\(finished.errors)")
            return []
        }
        return finished.output.split(separator: "\n").map(String.init)
    }
}
