import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The HTTP/1.1 servers' shared engine: a loopback listener that accepts on a thread of its own and
/// serves each connection on its own thread; `stop()` wakes every wait at once.
///
/// Used by `TestServer` (ConnectionKitTesting) and `ConnectionInspector` (ConnectionKitInspector),
/// which each bring their own way of answering requests.
package final class HTTPListener: Sendable {
    /// Serves one connection until it should end; gets the socket and the connection's id (1, 2, …).
    package typealias Serve = @Sendable (SocketConnection, Int) -> ConnectionDisposition

    private struct State {
        var run: ServerRun?
        var port = 0
        var openConnections = 0
        var acceptedConnections = 0
    }

    private let state = Locked(State())
    /// Names the threads, e.g. `TestServer`.
    private let name: String
    /// Connections beyond this many open ones are closed at once; `nil` for no limit.
    private let maximumConnections: Int?
    /// With limits, new connections wait in a ``HeadGate`` on the accept thread until their first head
    /// is complete; only then do they get a thread (and count against `maximumConnections`).
    private let gate: HeadGate.Limits?
    /// Whether its threads run at a lower priority than the process's others.
    private let yieldsToTheApp: Bool

    /// How long `stop()` waits for the threads to finish. They react to the wake signal within
    /// milliseconds; only a handler that blocks can hold one longer, and then `stop()` returns anyway.
    package static let stopGracePeriod: DispatchTimeInterval = .milliseconds(800)

    /// With `yieldsToTheApp`, the accept thread and every connection thread run at a lower priority
    /// (nice +10 on Linux, where the nice value is per thread), so that whatever clients send, the
    /// process's other threads get the processor first.
    package init(
        name: String, maximumConnections: Int? = nil, gate: HeadGate.Limits? = nil, yieldsToTheApp: Bool = false
    ) {
        self.name = name
        self.maximumConnections = maximumConnections
        self.gate = gate
        self.yieldsToTheApp = yieldsToTheApp
    }

    /// Lowers the calling thread's priority when ``yieldsToTheApp``.
    private func lowerPriorityIfAsked() {
        guard yieldsToTheApp else { return }
        #if canImport(Glibc)
            _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 10)
        #endif
    }

    // MARK: - Observations

    /// The port of the current (or last) listener; 0 before the first start.
    package var port: Int { state.withLock { $0.port } }
    /// Client connections open right now.
    package var openConnections: Int { state.withLock { $0.openConnections } }
    /// Connections accepted since creation (across restarts).
    package var acceptedConnections: Int { state.withLock { $0.acceptedConnections } }
    /// Whether it is listening.
    package var isRunning: Bool { state.withLock { $0.run != nil } }

    // MARK: - Lifecycle

    /// Binds 127.0.0.1 on `port` (0: the OS picks) and starts accepting; `serve` answers each
    /// connection. Returns `false` when already running; throws ``SocketFailure``.
    package func start(port: Int = 0, serve: @escaping Serve) throws -> Bool {
        guard !isRunning else { return false }
        let wake = try WakeSignal()
        let listener = try POSIXSocket.openLoopbackListener(port: port)
        let run = ServerRun(listenFD: listener.fd, wake: wake, serve: serve)
        let installed = state.withLock { state -> Bool in
            guard state.run == nil else { return false }
            state.run = run
            state.port = listener.port
            return true
        }
        guard installed else {
            close(listener.fd)
            return false
        }
        run.threads.enter()
        let thread = Thread { [self] in
            acceptLoop(run)
            close(run.listenFD)
            run.threads.leave()
        }
        thread.name = "\(name) accept :\(listener.port)"
        thread.start()
        return true
    }

    /// Closes the listener and every open connection; waits up to ``stopGracePeriod`` for the threads.
    /// Idempotent.
    package func stop() {
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
        lowerPriorityIfAsked()
        if let gate {
            var heads = HeadGate(limits: gate)
            while heads.round(
                listenFD: run.listenFD, wakeFD: run.wake.readFD,
                admit: { fd, bytes in
                    spawnConnectionThread(fd: fd, run: run, buffered: bytes)
                })
            {}
            return
        }
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

    private func spawnConnectionThread(fd: Int32, run: ServerRun, buffered: [UInt8] = []) {
        let limit = maximumConnections
        let connectionID: Int? = state.withLock { state in
            if let limit, state.openConnections >= limit { return nil }
            state.acceptedConnections += 1
            state.openConnections += 1
            return state.acceptedConnections
        }
        guard let connectionID else {
            POSIXSocket.closeWithReset(fd)
            return
        }
        let connection = SocketConnection(fd: fd, wake: run.wake, buffered: buffered)
        run.threads.enter()
        let thread = Thread { [self] in
            lowerPriorityIfAsked()
            switch run.serve(connection, connectionID) {
            case .reset:
                POSIXSocket.closeWithReset(fd)
            case .close, .keepAlive:
                POSIXSocket.closeGracefully(fd)
            }
            state.withLock { $0.openConnections -= 1 }
            run.threads.leave()
        }
        thread.name = "\(name) connection \(connectionID)"
        thread.start()
    }
}
