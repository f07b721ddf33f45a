import ConnectionKitTesting
import Foundation
import Testing

@testable import ConnectionKit

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The written contract of `Transport/Transport.swift`, one test per point, run on the scripted fake,
/// URLSession and libcurl (the real ones against a `TestServer` on loopback, through the transport seam
/// with no request in between). A transport that breaks a point fails the test that names it.
@Suite("The transport contract", .offThePool, .timeLimit(.minutes(10)), .exclusive)
struct TransportContractTests {
    /// "hello, contract\n", compressed by `gzip -9n`.
    static let gzipped = Data([
        31, 139, 8, 0, 0, 0, 0, 0, 2, 3, 203, 72, 205, 201, 201, 215, 81, 72, 206, 207, 43, 41, 74, 76, 46, 225, 2,
        0, 168, 70, 172, 186, 16, 0, 0, 0,
    ])

    @Test("as given: a redirect is delivered as the response, not followed", arguments: ContractSubject.all)
    func redirectNotFollowed(subject: ContractSubject) async throws {
        let fixture = try ContractFixture(
            subject, script: [.response(status: 302, fields: ["Location": "/to"]), .complete()]
        ) {
            _ in .redirect(to: "/to")
        }
        fixture.server?.route("/to") { _ in .text("followed") }
        let log = TransferLog()
        startLogged(fixture.request, on: fixture.transport, log: log)
        await log.waitForCompletion()
        #expect(log.statuses == [302])
        #expect(log.error == nil)
        #expect(fixture.server?.hits("/to") ?? 0 == 0)
    }

    @Test("as given: a Basic 401 is delivered as the response, no challenge answered", arguments: ContractSubject.all)
    func challengeNotAnswered(subject: ContractSubject) async throws {
        let challenge = ["WWW-Authenticate": "Basic realm=\"contract\""]
        let fixture = try ContractFixture(subject, script: [.response(status: 401, fields: challenge), .complete()]) {
            _ in TestResponse(status: 401, headers: [TestHeader("WWW-Authenticate", "Basic realm=\"contract\"")])
        }
        let log = TransferLog()
        startLogged(fixture.request, on: fixture.transport, log: log)
        await log.waitForCompletion()
        #expect(log.state.withLock { $0.completionResponse?.statusCode } == 401)
        #expect(log.error == nil)
        if let server = fixture.server {
            #expect(server.hits("/contract") == 1)
            #expect(server.receivedRequests("/contract").allSatisfy { $0.header("Authorization") == nil })
        }
    }

    @Test(
        "the body is decoded (Content-Encoding) and the header fields are delivered as received",
        arguments: ContractSubject.all)
    func bodyDecodedHeadersKept(subject: ContractSubject) async throws {
        let plain = Data("hello, contract\n".utf8)
        let script: [ScriptedTransport.Step] = [
            .response(status: 200, fields: ["Content-Encoding": "gzip", "Content-Length": "36"]), .data(plain),
            .complete(),
        ]
        let fixture = try ContractFixture(subject, script: script) { _ in
            TestResponse(headers: [TestHeader("Content-Encoding", "gzip")], body: .data(Self.gzipped))
        }
        let log = TransferLog()
        startLogged(fixture.request, on: fixture.transport, log: log)
        await log.waitForCompletion()
        #expect(log.error == nil)
        #expect(log.body == plain)
        #expect(log.field("Content-Encoding") == "gzip")
        #expect(log.field("Content-Length") == "\(Self.gzipped.count)")
    }

    @Test(
        "no timeout of its own: a response 2.5 s after a 1 s timeoutInterval still arrives",
        arguments: ContractSubject.all)
    func quietTransferNotTimedOut(subject: ContractSubject) async throws {
        let fixture = try ContractFixture(
            subject, script: [.response(status: 200), .data(Data("late".utf8)), .complete()]
        ) {
            _ in
            var response = TestResponse.text("late")
            response.delayBeforeHeaders = 2.5
            return response
        }
        var request = fixture.request
        request.timeoutInterval = 1
        let log = TransferLog()
        startLogged(request, on: fixture.transport, log: log)
        await log.waitForCompletion()
        #expect(log.error == nil)
        #expect(log.body == Data("late".utf8))
    }

    @Test("its failures are URLErrors: a refused connection is cannotConnectToHost", arguments: ContractSubject.all)
    func failuresAreURLErrors(subject: ContractSubject) async throws {
        let refused = try LoopbackPort(reusable: false)
        let transport =
            try subject.realTransport()
            ?? ScriptedTransport([.completeWithoutResponse(error: URLError(.cannotConnectToHost))])
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(refused.port)/refused")!)
        request.timeoutInterval = 60
        let log = TransferLog()
        startLogged(request, on: transport, log: log)
        await log.waitForCompletion()
        #expect((log.error as? URLError)?.code == .cannotConnectToHost)
        #expect(log.statuses.isEmpty)
        #expect(log.completions == 1)
        withExtendedLifetime(refused) {}
    }

    @Test(
        "1. events are serial, on the transport's threads, never on the caller's inside startTransfer",
        arguments: ContractSubject.all)
    func eventsSerial(subject: ContractSubject) async throws {
        let upload = Data(repeating: 0x75, count: 1_000_000)
        var script: [ScriptedTransport.Step] = [
            .sent(totalBytes: 1_000_000, expectedBytes: 1_000_000), .response(status: 200),
        ]
        script += ScriptedTransport.Step.body(4_000_000) + [.someMetrics, .complete()]
        let fixture = try ContractFixture(subject, script: script) { request in
            TestResponse(body: .generated(length: 4_000_000, seed: UInt8(request.body.count % 251)))
        }
        var request = fixture.request
        request.httpMethod = "POST"
        request.httpBody = upload
        request.setValue("application/octet-stream", forHTTPHeaderField: "Content-Type")
        let log = TransferLog()
        startLogged(request, on: fixture.transport, log: log)
        await log.waitForCompletion()
        let state = log.state.withLock { $0 }
        #expect(state.error == nil)
        #expect(state.body.count == 4_000_000)
        #expect(state.overlaps == 0)
        #expect(state.onCallerInsideStart == 0)
        #expect(state.events.contains { $0.isSent })
    }

    @Test(
        "2. events may begin before startTransfer returns: the receiver gets the whole transfer",
        arguments: ContractSubject.all)
    func eventsBeforeStartReturns(subject: ContractSubject) async throws {
        // The fake completes every transfer before `startTransfer` returns; the real ones race it.
        let script: [ScriptedTransport.Step] = [
            .response(status: 200), .data(Data("fast".utf8)), .complete(), .returnFromStart,
        ]
        let fixture = try ContractFixture(subject, script: script) { _ in .text("fast") }
        for _ in 0..<10 {
            let log = TransferLog()
            startLogged(fixture.request, on: fixture.transport, log: log)
            await log.waitForCompletion()
            #expect(log.body == Data("fast".utf8))
            #expect(log.completions == 1)
            if subject == .scripted {
                #expect(log.state.withLock { $0.completedBeforeStartReturned })
            }
        }
    }

    @Test(
        "3. the response comes once, after the whole final header block, before any body data",
        arguments: ContractSubject.all)
    func responseOnceBeforeData(subject: ContractSubject) async throws {
        let raw =
            "HTTP/1.1 103 Early Hints\r\nLink: </a.css>; rel=preload\r\n\r\n"
            + "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nX-First: 1\r\nX-Last: yes\r\n\r\nfinal"
        let script: [ScriptedTransport.Step] = [
            .response(status: 200, fields: ["Content-Length": "5", "X-First": "1", "X-Last": "yes"]),
            .data(Data("final".utf8)), .complete(),
        ]
        let fixture = try ContractFixture(subject, script: script) { _ in TestResponse(fault: .raw(Data(raw.utf8))) }
        let log = TransferLog()
        startLogged(fixture.request, on: fixture.transport, log: log)
        await log.waitForCompletion()
        let events = log.events
        #expect(log.statuses == [200])
        let firstData = events.firstIndex(where: \.isData)
        let response = events.firstIndex { $0.status != nil }
        #expect(firstData != nil && response != nil && response! < firstData!)
        #expect(log.field("X-Last") == "yes")
        #expect(log.body == Data("final".utf8))
    }

    @Test(
        "4. at most one completion, and no event after it (counted over a 0.5 s settle window)",
        arguments: ContractSubject.all)
    func oneCompletionNothingAfter(subject: ContractSubject) async throws {
        let script: [ScriptedTransport.Step] =
            [.response(status: 200)] + ScriptedTransport.Step.body(300_000) + [.someMetrics, .complete()]
        let fixture = try ContractFixture(subject, script: script) { _ in
            TestResponse(body: .generated(length: 300_000, seed: 4))
        }
        let log = TransferLog()
        startLogged(fixture.request, on: fixture.transport, log: log)
        await log.waitForCompletion()
        try await Task.sleep(nanoseconds: 500_000_000)
        let state = log.state.withLock { $0 }
        #expect(state.completions == 1)
        #expect(state.eventsAfterCompletion == 0)
        #expect(state.body.count == 300_000)
    }

    @Test(
        "5. cancel() from inside an event returns at once; no event and no completion follow",
        arguments: ContractSubject.all)
    func cancelInsideAnEvent(subject: ContractSubject) async throws {
        let script: [ScriptedTransport.Step] =
            [.response(status: 200)] + ScriptedTransport.Step.body(1_000_000) + [.complete()]
        let fixture = try ContractFixture(subject, script: script) { _ in
            TestResponse(body: .generated(length: 256 * 1024 * 1024, seed: 5))
        }
        let took = Locked<TimeInterval?>(nil)
        let log = TransferLog { log, event in
            guard case .data = event, took.withLock({ $0 == nil }) else { return }
            let seconds = log.cancel()
            took.withLock { $0 = seconds }
        }
        startLogged(fixture.request, on: fixture.transport, log: log)
        let cancelled = await becomesTrue { took.withLock { $0 != nil } }
        try await Task.sleep(nanoseconds: 1_000_000_000)
        let state = log.state.withLock { $0 }
        #expect(cancelled)
        #expect((took.withLock { $0 } ?? 99) < 2)
        #expect(state.eventsStartedAfterCancel == 0)
        #expect(state.completions == 0)
        #expect(state.body.count < 256 * 1024 * 1024)
    }

    @Test(
        "5. cancel() from another thread returns at once; no completion follows, at most the event already running",
        arguments: ContractSubject.all)
    func cancelFromAnotherThread(subject: ContractSubject) async throws {
        let script: [ScriptedTransport.Step] =
            [.response(status: 200)] + ScriptedTransport.Step.body(100_000) + [.holdUntilCancelled, .complete()]
        let fixture = try ContractFixture(subject, script: script) { _ in
            TestResponse(body: .stream(interval: 0.01) { Data("tick \($0)\n".utf8) })
        }
        let log = TransferLog()
        startLogged(fixture.request, on: fixture.transport, log: log)
        #expect(await becomesTrue { !log.body.isEmpty })
        let took = log.cancel()
        try await Task.sleep(nanoseconds: 1_000_000_000)
        let state = log.state.withLock { $0 }
        #expect(took < 2)
        #expect(state.eventsStartedAfterCancel <= 1)
        #expect(state.completions == 0)
    }

    @Test(
        "6. a .wait answer stops the body until demandMore() where the transfer follows demand (not URLSession); it then completes whole",
        arguments: ContractSubject.all)
    func waitStopsTheBodyUntilDemanded(subject: ContractSubject) async throws {
        let length = 32 * 1024 * 1024
        let script: [ScriptedTransport.Step] =
            [.response(status: 200)] + ScriptedTransport.Step.body(length, chunk: 65_536) + [.complete()]
        let fixture = try ContractFixture(subject, script: script) { _ in
            TestResponse(body: .generated(length: Int64(length), seed: 6))
        }
        let answered = Locked(false)
        let log = TransferLog(demand: { _, _ in
            answered.withLock { answered in
                defer { answered = true }
                return answered ? .more : .wait
            }
        })
        startLogged(fixture.request, on: fixture.transport, log: log)
        #expect(await becomesTrue { answered.withLock { $0 } })
        let follows = log.storedHandle()?.followsDemand ?? false
        #expect(follows == subject.canPause)
        if follows {
            let settled = await log.bodySizeOnceQuiet()
            try await Task.sleep(nanoseconds: 1_000_000_000)
            #expect(log.body.count == settled)
            #expect(settled < length)
            #expect(log.completions == 0)
            log.handle?.demandMore()
        }
        await log.waitForCompletion()
        #expect(log.error == nil)
        #expect(log.body.count == length)
    }

    @Test("7. metrics come before the completion, where the transport reports them", arguments: ContractSubject.all)
    func metricsBeforeCompletion(subject: ContractSubject) async throws {
        let script: [ScriptedTransport.Step] = [
            .response(status: 200), .data(Data("m".utf8)), .someMetrics, .complete(),
        ]
        let fixture = try ContractFixture(subject, script: script) { _ in .text("m") }
        let log = TransferLog()
        startLogged(fixture.request, on: fixture.transport, log: log)
        await log.waitForCompletion()
        try await Task.sleep(nanoseconds: 300_000_000)
        let events = log.events
        let metrics = events.indices.filter { events[$0] == .metrics }
        let completion = events.firstIndex(where: \.isCompletion)
        #expect(metrics.count == (subject.reportsMetrics ? 1 : 0))
        #expect(metrics.allSatisfy { completion != nil && $0 < completion! })
        if subject.reportsMetrics {
            #expect(log.state.withLock { $0.metrics.first?.remoteAddress } == "127.0.0.1")
        }
    }
}

/// Polls `condition` every 10 ms until it holds, for at most `timeout` seconds; returns whether it held.
func becomesTrue(within timeout: TimeInterval = 20, _ condition: () -> Bool) async -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while !condition() {
        guard Date() < deadline else { return false }
        try? await Task.sleep(nanoseconds: 10_000_000)
    }
    return true
}
