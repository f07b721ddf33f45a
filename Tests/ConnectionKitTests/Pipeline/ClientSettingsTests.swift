import ConnectionKitTesting
import Foundation
import Testing

@testable import ConnectionKit

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Client-wide settings (`ConnectionClient.Settings`) reach every request family on the client — JSON,
/// download, streaming — without a common superclass, and a class or an instance that says otherwise wins.
@Suite("Client-wide settings", .offThePool, .timeLimit(.minutes(5)))
struct ClientSettingsTests {
    struct Item: Decodable, Sendable { let name: String }
    struct AppError: Error, Equatable { let status: Int? }

    private static func settings(_ server: TestServer) -> ConnectionClient.Settings {
        ConnectionClient.Settings(
            baseURL: server.url("/api/"), headerFields: ["X-App": "tag-along/2"], authorization: .bearer("s3cret"),
            mapError: { AppError(status: $0.statusCode) },
            retryPolicy: RetryPolicy(maximumAttempts: 2, initialBackoff: 0, jitter: 0), timeoutInterval: 20)
    }

    @Test("base URL, header fields and authorization reach a JSON, a download and a streaming class on one client")
    func everyFamilyGetsThem() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/api/item") { _ in .json(["name": "one"]) }
        server.route("/api/file") { _ in .text("file body") }
        server.route("/api/lines") { _ in .text("a\nb\n") }
        let client = ConnectionClient.ownForTests(label: "settings-families", settings: Self.settings(server))
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ck-settings-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }

        let item = try #require(await within(30, "the JSON run") { try? await ItemRequest().value(on: client) })
        #expect(item.name == "one")
        let download = FileRequest(to: folder.appendingPathComponent("file"))
        let saved = try #require(await within(30, "the download") { try? await download.value(on: client) })
        #expect(try String(contentsOf: saved, encoding: .utf8) == "file body")
        let lines = try #require(
            await within(30, "the stream") { () -> [String]? in
                var lines: [String] = []
                do {
                    for try await line in LinesRequest().elements(on: client) { lines.append(line) }
                } catch { return nil }
                return lines
            })
        #expect(lines == ["a", "b"])
        for path in ["/api/item", "/api/file", "/api/lines"] {
            let sent = try #require(server.receivedRequests(path).first, "\(path) was requested")
            #expect(sent.header("X-App") == "tag-along/2", "\(path)")
            #expect(sent.header("Authorization") == "Bearer s3cret", "\(path)")
        }
        try await within(30, "the client's shutdown") { await client.shutdown() }
    }

    @Test("the retry policy and the error mapping apply; a class's own hook and instance settings win")
    func retriesMappingAndOverrides() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/api/missing") { _ in .status(503) }
        server.route("/api/own") { _ in .text("own") }
        let client = ConnectionClient.ownForTests(label: "settings-retry", settings: Self.settings(server))
        let failed = await within30 { try await MissingRequest().value(on: client) }
        #expect(failed as? AppError == AppError(status: 503), "the client's mapError turned it into the app's error")
        #expect(server.hits("/api/missing") == 2, "the client's retry policy tried twice")

        let own = OwnHeaders()
        own.instanceSettings.timeoutInterval = 5
        _ = try #require(await within(30, "the run") { try? await own.value(on: client) })
        let sent = try #require(server.receivedRequests("/api/own").first)
        #expect(sent.header("X-App") == "own", "the class's defaultHeaderFields win")
        #expect(sent.header("Authorization") == nil, "the class's authorization hook wins")
        #expect(own.timeoutInterval == 5, "instance settings win over the client's")
        #expect(MissingRequest().timeoutInterval == 60, "before a run on the client, the default")
        try await within(30, "the client's shutdown") { await client.shutdown() }
    }

    /// The error a run ends with, within 30 s.
    private func within30(_ run: @escaping @Sendable () async throws -> Any) async -> (any Error)? {
        try? await within(30, "the run") { () -> (any Error)? in
            do {
                _ = try await run()
                return nil
            } catch {
                return error
            }
        }
    }
}

private final class ItemRequest: JSONConnectionRequest<ClientSettingsTests.Item>, @unchecked Sendable {
    override var path: String { "item" }
}

private final class FileRequest: DownloadRequest, @unchecked Sendable {
    init(to destination: URL) {
        super.init()
        fileDestination = destination
    }
    override var path: String { "file" }
}

private final class LinesRequest: LineStreamRequest, @unchecked Sendable {
    override var path: String { "lines" }
}

private final class MissingRequest: ConnectionRequest<Data>, @unchecked Sendable {
    override var path: String { "missing" }
}

private final class OwnHeaders: ConnectionRequest<Data>, @unchecked Sendable {
    override var path: String { "own" }
    override var defaultHeaderFields: [String: String] { ["X-App": "own"] }
    override var authorization: Authorization? { nil }
}
