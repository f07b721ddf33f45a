import ConnectionKit
import ConnectionKitTesting
import Foundation
import Testing

@Suite("value() for async callers", .offThePool, .timeLimit(.minutes(20)))
struct AsyncTests {
    @Test("value() returns the output")
    func value() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/json") { _ in .jsonString(#"{"ok":true}"#) }
        let json = try await FetchJSON(server.url("/json")).value()
        #expect(json["ok"]?.boolValue == true)
    }

    @Test("value() throws what the failure handler would get")
    func valueThrows() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/missing") { _ in .status(404, body: "nope") }
        do {
            _ = try await FetchJSON(server.url("/missing")).value()
            Issue.record("expected an error")
        } catch let error as ConnectionError {
            #expect(error.statusCode == 404)
        }
    }

    @Test("cancelling the awaiting Task cancels the request", .exclusive)
    func taskCancellation() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/never") { _ in TestResponse(fault: .neverRespond) }
        let request = FetchData(server.url("/never"))
        request.callbackQueue = testCallbackQueue
        let task = Task { try await request.value() }
        // Wait for the request to be on the wire before cancelling.
        #expect(await server.waitForHits("/never"))
        task.cancel()
        let result = await task.result
        guard case .failure(let error as ConnectionError) = result else {
            Issue.record("expected ConnectionError.cancelled, got \(result)")
            return
        }
        #expect(error.isCancelled)
        #expect(request.state == .cancelled)
    }

    @Test("a Task cancelled before value() starts never sends the request")
    func alreadyCancelled() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/x") { _ in .text("x") }
        let request = FetchData(server.url("/x"))
        request.callbackQueue = testCallbackQueue
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await request.value()
        }
        let result = await task.result
        guard case .failure(let error as ConnectionError) = result else {
            Issue.record("expected ConnectionError.cancelled, got \(result)")
            return
        }
        #expect(error.isCancelled)
        #expect(request.state == .cancelled)
        #expect(request.attempt == 0, "no attempt was begun")
        // A request handed to URLSession and cancelled right after may still reach the server a moment
        // later: give it that moment before counting.
        #expect(!(await server.waitForHits("/x", timeout: 0.5)), "the request reached the server")
        #expect(server.hits("/x") == 0)
    }

    @Test("value() on a running request joins its run")
    func joinRun() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/slow") { _ in TestResponse(body: .data(Data("once".utf8)), delayBeforeHeaders: 0.2) }
        let request = FetchData(server.url("/slow"))
        request.callbackQueue = testCallbackQueue
        request.start()
        let data = try await request.value()
        #expect(String(decoding: data, as: UTF8.self) == "once")
        #expect(server.hits("/slow") == 1)
    }
}
