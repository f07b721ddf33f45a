import Foundation
import HTTPServerCore

/// The engine behind ``TestServer``: routes and recorded requests over the shared ``HTTPListener``.
/// Server threads hold this object, never the `TestServer`, so a test that drops its server without
/// calling `stop()` still gets it stopped by `TestServer.deinit`.
final class ServerCore: Sendable {
    // MARK: - State

    let state = Locked(ServerState())
    let listener = HTTPListener(name: "TestServer")

    // MARK: - Lifecycle

    func start(port: Int = 0) throws {
        let started: Bool
        do {
            started = try listener.start(port: port) { [self] connection, connectionID in
                ConnectionHandler(connection: connection, connectionID: connectionID, core: self).run()
            }
        } catch let failure as SocketFailure {
            throw TestServerError.socketFailure(operation: failure.operation, errno: failure.errno)
        }
        guard started else { throw TestServerError.alreadyRunning }
    }

    func stop() {
        listener.stop()
    }

    // MARK: - Requests

    /// Whether request bodies for `path` are digested rather than stored.
    func digestsBody(of path: String) -> Bool {
        state.withLock { $0.digestedPaths.contains(path) }
    }

    /// Records `request` for `hits` and `receivedRequests`, then finds its handler: an exact method match
    /// first, then a route registered for any method. `nil` when no route matches.
    func admit(_ request: TestRequest) -> (@Sendable (TestRequest) -> TestResponse)? {
        let (handler, satisfied) = state.withLock { state in
            state.requestsByPath[request.path, default: []].append(request)
            let hits = state.requestsByPath[request.path]?.count ?? 0
            let ready = state.hitWaiters.filter { $0.value.path == request.path && hits >= $0.value.count }
            ready.keys.forEach { state.hitWaiters.removeValue(forKey: $0) }
            let method = request.method.uppercased()
            let handler =
                state.routes[RouteKey(method: method, path: request.path)]
                ?? state.routes[RouteKey(method: nil, path: request.path)]
            return (handler, Array(ready.values))
        }
        satisfied.forEach { $0.resume(true) }
        return handler
    }

    /// Resumes `resume` with `true` once `path` has `count` hits, or with `false` after `timeout`.
    func waitForHits(_ path: String, count: Int, timeout: TimeInterval, resume: @escaping @Sendable (Bool) -> Void) {
        let id: UInt64? = state.withLock { state in
            if (state.requestsByPath[path]?.count ?? 0) >= count { return nil }
            let id = state.nextWaiterID
            state.nextWaiterID &+= 1
            state.hitWaiters[id] = HitWaiter(path: path, count: count, resume: resume)
            return id
        }
        guard let id else {
            resume(true)
            return
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout) { [weak self] in
            let waiter = self?.state.withLock { $0.hitWaiters.removeValue(forKey: id) }
            waiter?.resume(false)
        }
    }
}
