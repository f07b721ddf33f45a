import ConnectionKit
import ConnectionKitTesting
import Foundation
import Testing

@Suite(.offThePool, .serialized, .exclusive, .timeLimit(.minutes(20))) struct RegistryQueryTests {
    @Test func isInUseAndRequestsOfWhileRunningAndAfter() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/hang") { _ in TestResponse(fault: .neverRespond) }
        let first = QueryProbe(server.url("/hang"))
        let second = QueryProbe(server.url("/hang"))
        #expect(!ConnectionRegistry.shared.isInUse(QueryProbe.self))
        #expect(ConnectionRegistry.shared.requests(of: QueryProbe.self).isEmpty)

        let endings = EndingRecorder()
        endings.track(first)
        endings.track(second)
        first.start()
        second.start()
        #expect(ConnectionRegistry.shared.isInUse(QueryProbe.self))
        let live = ConnectionRegistry.shared.requests(of: QueryProbe.self).map(ObjectIdentifier.init)
        #expect(live == [ObjectIdentifier(first), ObjectIdentifier(second)], "in start order")
        let asProbes = ConnectionRegistry.shared.requests(of: Probe.self).map(ObjectIdentifier.init)
        #expect(asProbes.contains(ObjectIdentifier(first)), "a superclass query includes subclasses")
        let active = ConnectionRegistry.shared.activeRequests.map(ObjectIdentifier.init)
        let firstIndex = active.firstIndex(of: ObjectIdentifier(first))
        let secondIndex = active.firstIndex(of: ObjectIdentifier(second))
        #expect(firstIndex != nil && secondIndex != nil && firstIndex! < secondIndex!)

        first.cancel()
        second.cancel()
        guard await endings.ended() else { return }
        #expect(!ConnectionRegistry.shared.isInUse(QueryProbe.self))
        #expect(ConnectionRegistry.shared.requests(of: QueryProbe.self).isEmpty)
    }

    @Test func theRegistryForgetsARequestBeforeItsHandlerRunsAndKeepsAFireAndForgetOneAlive() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/ok") { _ in .text("ok") }
        let seenInHandler = NSLockedBlocks()
        let done = DispatchSemaphore(value: 0)
        weak var weakRequest: QueryProbe?
        do {
            let request = QueryProbe(server.url("/ok"))
            weakRequest = request
            request.completionHandler = { _ in
                let live = ConnectionRegistry.shared.isInUse(QueryProbe.self)
                seenInHandler.append(live ? "still registered" : "forgotten")
                done.signal()
            }
            request.start()
        }
        // Nothing but the registry holds the request now.
        #expect(weakRequest != nil || seenInHandler.all.count == 1)
        #expect(await done.signalled(within: 30), "the fire-and-forget request ended")
        #expect(seenInHandler.all == ["forgotten"])
    }
}
