import ConnectionKit
import ConnectionKitTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

private struct RefreshRefused: Error {}

/// An app superclass whose token is renewed by a shared refresher that succeeds.
private class RenewingAPI: ConnectionRequest<Data>, @unchecked Sendable {
    // Safe: immutable after init.
    static let credentials = InMemoryCredentialStore(["api": "expired"])
    static let refresher = AuthorizationRefresher {
        credentials.setCredential("fresh", for: "api")
    }
    let target: URL

    init(_ target: URL) {
        self.target = target
        super.init()
    }

    override var url: URL? { target }
    override var authorization: Authorization? {
        Self.credentials.credential(for: "api").map { .bearer($0) }
    }
    override var authorizationRefresher: AuthorizationRefresher? { Self.refresher }
}

private final class FetchRenewed: RenewingAPI, @unchecked Sendable {
    // Safe: no stored state of its own.
}

/// An app superclass whose refresh always fails.
private class FailingAPI: ConnectionRequest<Data>, @unchecked Sendable {
    // Safe: immutable after init.
    static let refresher = AuthorizationRefresher { throw RefreshRefused() }
    let target: URL

    init(_ target: URL) {
        self.target = target
        super.init()
    }

    override var url: URL? { target }
    override var authorization: Authorization? { .bearer("expired") }
    override var authorizationRefresher: AuthorizationRefresher? { Self.refresher }
}

private final class FetchFailing: FailingAPI, @unchecked Sendable {
    // Safe: no stored state of its own.
}

/// A superclass whose server keeps refusing even the renewed token.
private final class StubbornAPI: ConnectionRequest<Data>, @unchecked Sendable {
    // Safe: immutable after init.
    static let refresher = AuthorizationRefresher {}
    let target: URL

    init(_ target: URL) {
        self.target = target
        super.init()
    }

    override var url: URL? { target }
    override var authorization: Authorization? { .bearer("whatever") }
    override var authorizationRefresher: AuthorizationRefresher? { Self.refresher }
}

@Suite("Authorization refresh", .offThePool, .exclusive, .timeLimit(.minutes(20)))
struct AuthorizationRefreshTests {
    @Test func fiftyConcurrent401sCauseOneRefreshAndAllSucceed() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        let allExpiredArrived = ArrivalGate(count: 50)
        server.route("GET", "/data") { request in
            guard request.header("Authorization") != "Bearer fresh" else { return .text("ok") }
            allExpiredArrived.arriveAndWait()
            return .status(401, body: "expired")
        }
        let queue = DispatchQueue(label: "AuthorizationRefreshTests.success")
        let bodies = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<50 {
                let request = FetchRenewed(server.url("/data"))
                request.callbackQueue = queue
                group.addTask { String(decoding: try await request.value(), as: UTF8.self) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(bodies.count == 50)
        #expect(bodies.allSatisfy { $0 == "ok" })
        #expect(RenewingAPI.refresher.refreshCount == 1)
        let received = server.receivedRequests("/data")
        #expect(received.filter { $0.header("Authorization") == "Bearer expired" }.count == 50)
        #expect(received.filter { $0.header("Authorization") == "Bearer fresh" }.count == 50)
    }

    @Test func aFailedRefreshFailsEveryWaitingRequestOnce() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        let allArrived = ArrivalGate(count: 50)
        server.route("GET", "/data") { _ in
            allArrived.arriveAndWait()
            return .status(401, body: "expired")
        }
        let queue = DispatchQueue(label: "AuthorizationRefreshTests.failure")
        let failures = ClientCounter()
        let successes = ClientCounter()
        let ended = DispatchGroup()
        var requests: [FetchFailing] = []
        for _ in 0..<50 {
            let request = FetchFailing(server.url("/data"))
            request.callbackQueue = queue
            request.completionHandler = { _ in
                successes.increment()
                ended.leave()
            }
            request.failureHandler = { error in
                let connectionError = error as? ConnectionError
                if connectionError?.underlyingError is AuthorizationRefreshError,
                    connectionError?.isAuthenticationFailure == true,
                    error.localizedDescription
                        == "FetchFailing failed: your credentials could not be authenticated and could not be renewed. "
                        + "Sign in again."
                {
                    failures.increment()
                } else {
                    Issue.record("unexpected error: \(error)")
                }
                ended.leave()
            }
            requests.append(request)
        }
        for request in requests {
            ended.enter()
            request.start()
        }
        #expect(await ClientWait.left(ended, within: 60), "not every request ended")
        // Anything delivered twice would have run on `queue` by now.
        queue.sync {}
        #expect(failures.value == 50)
        #expect(successes.value == 0)
        #expect(FailingAPI.refresher.refreshCount == 1)
        #expect(server.hits("/data") == 50)
        #expect(ConnectionRegistry.shared.requests(of: FetchFailing.self).isEmpty)
    }

    @Test func aRequestRetriesOnlyOnceAfterARefresh() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("GET", "/data") { _ in .status(401, body: "nope") }
        let request = StubbornAPI(server.url("/data"))
        request.callbackQueue = DispatchQueue(label: "AuthorizationRefreshTests.stubborn")
        let error = try await #require(throws: ConnectionError.self) { try await request.value() }
        #expect(error.statusCode == 401)
        #expect(server.hits("/data") == 2)
        #expect(StubbornAPI.refresher.refreshCount == 1)
    }
}

/// A superclass whose refresh waits until the test lets it go.
private final class WaitingAPI: ConnectionRequest<Data>, @unchecked Sendable {
    // Safe: immutable after init.
    static let entered = DispatchSemaphore(value: 0)
    static let release = DispatchSemaphore(value: 0)
    static let refresher = AuthorizationRefresher {
        entered.signal()
        // Stands for a slow renewal; the test always releases it.
        _ = await ClientWait.signalled(release, within: 30)
    }
    let target: URL

    init(_ target: URL) {
        self.target = target
        super.init()
    }

    override var url: URL? { target }
    override var authorization: Authorization? { .bearer("expired") }
    override var authorizationRefresher: AuthorizationRefresher? { Self.refresher }
}

@Suite("Authorization refresh: cancelling", .offThePool, .exclusive, .timeLimit(.minutes(20)))
struct AuthorizationRefreshCancelTests {
    @Test func cancellingARequestWaitingForTheRefreshEndsItAtOnce() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("GET", "/data") { _ in .status(401, body: "expired") }
        let request = WaitingAPI(server.url("/data"))
        request.callbackQueue = DispatchQueue(label: "AuthorizationRefreshCancelTests")
        let ended = DispatchSemaphore(value: 0)
        let cancelled = ClientCounter()
        request.failureHandler = { error in
            if (error as? ConnectionError)?.isCancelled == true { cancelled.increment() }
            ended.signal()
        }
        request.start()
        #expect(await ClientWait.signalled(WaitingAPI.entered, within: 30), "the refresh never started")
        request.cancel()
        #expect(await ClientWait.signalled(ended, within: 10), "the cancelled request did not end")
        WaitingAPI.release.signal()
        #expect(cancelled.value == 1)
        #expect(request.state == .cancelled)
        #expect(server.hits("/data") == 1)
    }
}
