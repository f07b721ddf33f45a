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
        /// The open connections by id (only when ``evictsWaiting``).
        var connections: [Int: OpenConnection] = [:]
        /// Orders the moments connections started waiting.
        var clock: UInt64 = 0
    }

    /// An open connection, as far as eviction needs to know it.
    private struct OpenConnection {
        let fd: Int32
        /// When it started waiting for a request (``State/clock``); `nil` while it is being answered.
        var waitingSince: UInt64?
        var evicted = false
    }

    private let state = Locked(State())
    /// Names the threads, e.g. `TestServer`.
    private let name: String
    /// Connections beyond this many open ones are closed at once (or evict one); `nil` for no limit.
    private let maximumConnections: Int?
    /// Whether a connection beyond the limit evicts the one that has waited longest for a request
    /// instead of being refused, so that idle sockets cannot lock others out.
    private let evictsWaiting: Bool

    /// How long `stop()` waits for the threads to finish. They react to the wake signal within
    /// milliseconds; only a handler that blocks can hold one longer, and then `stop()` returns anyway.
    package static let stopGracePeriod: DispatchTimeInterval = .milliseconds(800)

    /// `maximumConnections` caps the open connections (`nil`: no cap). With `evictsWaiting`, a connection
    /// beyond the cap closes the open one that has waited longest for a request (see ``setWaiting(_:_:)``)
    /// and takes its place; it is refused only when none waits, or when as many again are still closing.
    package init(name: String, maximumConnections: Int? = nil, evictsWaiting: Bool = false) {
        self.name = name
        self.maximumConnections = maximumConnections
        self.evictsWaiting = evictsWaiting && maximumConnections != nil
    }

    /// Marks connection `id` as waiting for a request (it may be evicted) or as being answered (it may
    /// not). A connection starts out waiting. Only matters with `evictsWaiting`.
    package func setWaiting(_ id: Int, _ waiting: Bool) {
        guard evictsWaiting else { return }
        state.withLock { state in
            guard var connection = state.connections[id], !connection.evicted else { return }
            state.clock += 1
            connection.waitingSince = waiting ? state.clock : nil
            state.connections[id] = connection
        }
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
        let connectionID: Int? = state.withLock { state in
            guard admit(&state) else { return nil }
            state.acceptedConnections += 1
            state.openConnections += 1
            if evictsWaiting {
                state.clock += 1
                state.connections[state.acceptedConnections] = OpenConnection(fd: fd, waitingSince: state.clock)
            }
            return state.acceptedConnections
        }
        guard let connectionID else {
            POSIXSocket.closeWithReset(fd)
            return
        }
        let connection = SocketConnection(fd: fd, wake: run.wake)
        run.threads.enter()
        let thread = Thread { [self] in
            let disposition = run.serve(connection, connectionID)
            // Forgotten before it is closed, so that an eviction never shuts down a reused descriptor.
            state.withLock { state in
                state.openConnections -= 1
                state.connections[connectionID] = nil
            }
            switch disposition {
            case .reset:
                POSIXSocket.closeWithReset(fd)
            case .close, .keepAlive:
                POSIXSocket.closeGracefully(fd)
            }
            run.threads.leave()
        }
        thread.name = "\(name) connection \(connectionID)"
        thread.start()
    }

    /// Whether one more connection may open, evicting the longest-waiting one when at the cap. Runs under
    /// the lock: the victim's descriptor is still open then (its thread forgets it before closing it).
    private func admit(_ state: inout State) -> Bool {
        guard let limit = maximumConnections, state.openConnections >= limit else { return true }
        guard evictsWaiting, state.openConnections < 2 * limit else { return false }
        let victim = state.connections
            .filter { !$0.value.evicted && $0.value.waitingSince != nil }
            .min { ($0.value.waitingSince ?? 0) < ($1.value.waitingSince ?? 0) }
        guard let (id, connection) = victim else { return false }
        state.connections[id]?.evicted = true
        state.connections[id]?.waitingSince = nil
        _ = shutdown(connection.fd, Int32(SHUT_RDWR))
        return true
    }
}
