import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The engine behind ``TestServer``. Server threads hold this object, never the `TestServer`, so a test that
/// drops its server without calling `stop()` still gets it stopped by `TestServer.deinit`.
final class ServerCore: Sendable {
    // MARK: - Constants

    /// How long `stop()` waits for server threads to finish. They react to the wake signal within
    /// milliseconds; only a route handler that blocks can hold one longer, and then `stop()` returns anyway.
    static let stopGracePeriod: DispatchTimeInterval = .milliseconds(800)

    // MARK: - State

    let state = Locked(ServerState())

    // MARK: - Lifecycle

    func start(port: Int = 0) throws {
        let alreadyRunning = state.withLock { $0.run != nil }
        guard !alreadyRunning else { throw TestServerError.alreadyRunning }
        let wake = try WakeSignal()
        let listener = try POSIXSocket.openLoopbackListener(port: port)
        let run = ServerRun(listenFD: listener.fd, wake: wake)
        let installed = state.withLock { state -> Bool in
            guard state.run == nil else { return false }
            state.run = run
            state.port = listener.port
            return true
        }
        guard installed else {
            close(listener.fd)
            throw TestServerError.alreadyRunning
        }
        run.threads.enter()
        let thread = Thread { [self] in
            acceptLoop(run)
            close(run.listenFD)
            run.threads.leave()
        }
        thread.name = "TestServer accept :\(listener.port)"
        thread.start()
    }

    func stop() {
        let run = state.withLock { state -> ServerRun? in
            defer { state.run = nil }
            return state.run
        }
        guard let run else { return }
        run.wake.signal()
        _ = run.threads.wait(timeout: .now() + Self.stopGracePeriod)
    }

    // MARK: - Accepting

    private func acceptLoop(_ run: ServerRun) {
        while true {
            var descriptors = [
                pollfd(fd: run.wake.readFD, events: Int16(POLLIN), revents: 0),
                pollfd(fd: run.listenFD, events: Int16(POLLIN), revents: 0),
            ]
            let result = poll(&descriptors, nfds_t(descriptors.count), -1)
            if result < 0 && errno != EINTR { return }
            if descriptors[0].revents != 0 { return }
            guard descriptors[1].revents != 0 else { continue }
            while let fd = POSIXSocket.acceptConnection(from: run.listenFD) {
                spawnConnectionThread(fd: fd, run: run)
            }
            // Out of descriptors: back off briefly instead of spinning on a listener that stays readable.
            if errno == EMFILE || errno == ENFILE {
                _ = poll(&descriptors, 1, 10)
            }
        }
    }

    private func spawnConnectionThread(fd: Int32, run: ServerRun) {
        let connectionID = state.withLock { state -> Int in
            state.acceptedConnections += 1
            state.openConnections += 1
            return state.acceptedConnections
        }
        let connection = SocketConnection(fd: fd, wake: run.wake)
        run.threads.enter()
        let thread = Thread { [self] in
            let disposition = ConnectionHandler(connection: connection, connectionID: connectionID, core: self).run()
            switch disposition {
            case .reset:
                POSIXSocket.closeWithReset(fd)
            case .close, .keepAlive:
                POSIXSocket.closeGracefully(fd)
            }
            state.withLock { $0.openConnections -= 1 }
            run.threads.leave()
        }
        thread.name = "TestServer connection \(connectionID)"
        thread.start()
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
