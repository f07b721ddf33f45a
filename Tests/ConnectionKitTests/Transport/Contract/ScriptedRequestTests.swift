import Foundation
import Testing

@testable import ConnectionKit

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A GET over a ``ScriptedTransport``, whatever the process-wide default.
private final class OverScript: ConnectionRequest<Data>, @unchecked Sendable {
    // Safe: only immutable stored properties.
    let script: ScriptedTransport
    let bodyLimit: Int64

    init(_ script: ScriptedTransport, bodyLimit: Int64 = 128 * 1024 * 1024) {
        self.script = script
        self.bodyLimit = bodyLimit
    }

    override var url: URL? { URL(string: "http://127.0.0.1:9/scripted") }
    override var maximumResponseBodySize: Int64 { bodyLimit }
    override var transport: ConnectionTransport { ConnectionTransport(implementation: script, name: "scripted") }
}

/// The request's side of the transport contract, through the scripted fake: what real transports do
/// only rarely (a transfer that ends before `startTransfer` returns) or only when they misbehave
/// (no response, metrics after the completion). Lifecycle logic, checked without sockets.
@Suite("Requests over the scripted transport", .offThePool, .timeLimit(.minutes(2)))
struct ScriptedRequestTests {
    @Test("a transfer that completes before startTransfer returns ends its request once, with its body")
    func completesBeforeStartReturns() async throws {
        let script = ScriptedTransport([
            .response(status: 200), .data(Data("ea".utf8)), .data(Data("rly".utf8)), .complete(), .returnFromStart,
        ])
        let request = OverScript(script)
        let endings = Endings(request)
        request.start()
        #expect(try await endings.value() == Data("early".utf8))
        #expect(endings.count == 1)
        #expect(script.transfers.count == 1)
    }

    @Test("a completion with neither a response nor an error fails the request once, as badServerResponse")
    func completionWithoutResponse() async throws {
        let request = OverScript(ScriptedTransport([.completeWithoutResponse(error: nil)]))
        let endings = Endings(request)
        request.start()
        let error = try await endings.connectionError()
        guard error.kind == .transport, let urlError = error.urlError else {
            Issue.record("expected a transport error, got \(error)")
            return
        }
        #expect(urlError.code == .badServerResponse)
        #expect(endings.count == 1)
    }

    @Test("metrics delivered after the completion are ignored: the request ends once, with its body")
    func metricsAfterCompletion() async throws {
        let script = ScriptedTransport([
            .response(status: 200), .data(Data("done".utf8)), .complete(), .lateMetrics(TransferMetrics()),
        ])
        let request = OverScript(script)
        let endings = Endings(request)
        request.start()
        #expect(try await endings.value() == Data("done".utf8))
        #expect(await becomesTrue { script.transfers.first?.deliveredSteps == 4 })
        #expect(endings.count == 1)
    }

    @Test(
        "a body over the limit makes the request cancel its transfer from inside the data event: nothing more is delivered"
    )
    func cancelFromInsideAnEvent() async throws {
        let chunk = Data(repeating: 0x62, count: 8_000)
        let script = ScriptedTransport([
            .response(status: 200), .data(chunk), .data(chunk), .data(chunk), .someMetrics, .complete(),
        ])
        let request = OverScript(script, bodyLimit: 10_000)
        let endings = Endings(request)
        request.start()
        let error = try await endings.connectionError()
        guard case .responseTooLarge = error.kind else {
            Issue.record("expected responseTooLarge, got \(error)")
            return
        }
        let transfer = try #require(script.transfers.first)
        #expect(transfer.cancelCalls >= 1)
        #expect(transfer.deliveredSteps == 3)
        #expect(endings.count == 1)
    }
}
