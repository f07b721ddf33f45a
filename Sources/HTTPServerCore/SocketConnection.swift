import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One accepted client socket. Every blocking step polls the socket together with the server's wake pipe,
/// so `TestServer.stop()` interrupts reads, writes and deliberate stalls alike.
package struct SocketConnection: Sendable {
    // MARK: - Properties

    /// The non-blocking client socket.
    package let fd: Int32

    /// Signalled when the server stops.
    package let wake: WakeSignal

    /// Bytes already read from the socket before it was handed over (by a ``HeadGate``); a reader starts with them.
    package let buffered: [UInt8]

    /// Wraps an accepted, non-blocking socket.
    package init(fd: Int32, wake: WakeSignal, buffered: [UInt8] = []) {
        self.fd = fd
        self.wake = wake
        self.buffered = buffered
    }

    // MARK: - Waiting

    /// Waits until the socket is readable (or writable) or `timeout` passes (`nil` waits indefinitely).
    /// Returns `false` on timeout; throws `ConnectionEnd.serverStopping` when the server stops.
    @discardableResult
    package func wait(forWriting: Bool = false, timeout: TimeInterval? = nil) throws -> Bool {
        let socketEvents = Int16(forWriting ? POLLOUT : POLLIN)
        let deadline = timeout.map { Date().addingTimeInterval($0) }
        while true {
            var descriptors = [
                pollfd(fd: wake.readFD, events: Int16(POLLIN), revents: 0),
                pollfd(fd: fd, events: socketEvents, revents: 0),
            ]
            var milliseconds: Int32 = -1
            if let deadline {
                let remaining = deadline.timeIntervalSinceNow
                milliseconds = remaining <= 0 ? 0 : Int32(min(remaining * 1000, 60_000).rounded(.up))
            }
            let result = poll(&descriptors, nfds_t(descriptors.count), milliseconds)
            if result < 0 {
                if errno == EINTR { continue }
                throw ConnectionEnd.ioFailure(errno)
            }
            if descriptors[0].revents != 0 { throw ConnectionEnd.serverStopping }
            if descriptors[1].revents != 0 { return true }
            if let deadline, deadline.timeIntervalSinceNow <= 0 { return false }
        }
    }

    /// Waits `seconds` unless the server stops first (then throws `ConnectionEnd.serverStopping`).
    package func pause(_ seconds: TimeInterval) throws {
        guard seconds > 0 else { return }
        let deadline = Date().addingTimeInterval(seconds)
        while true {
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0 else { return }
            var descriptors = [pollfd(fd: wake.readFD, events: Int16(POLLIN), revents: 0)]
            let milliseconds = Int32(min(remaining * 1000, 60_000).rounded(.up))
            let result = poll(&descriptors, 1, milliseconds)
            if result < 0 && errno != EINTR { throw ConnectionEnd.ioFailure(errno) }
            if result > 0 && descriptors[0].revents != 0 { throw ConnectionEnd.serverStopping }
        }
    }

    // MARK: - Reading

    /// Reads whatever is available, up to `maxCount` bytes, waiting for at least one. Empty means EOF.
    /// With a `deadline`, throws `ConnectionEnd.timedOut` when nothing arrives before it.
    package func readSome(maxCount: Int = 65_536, deadline: Date? = nil) throws -> [UInt8] {
        var chunk = [UInt8](repeating: 0, count: maxCount)
        let count = try receive(into: &chunk, deadline: deadline)
        return Array(chunk[0..<count])
    }

    /// Reads whatever is available into the start of `scratch` (up to its size), waiting for at least one
    /// byte; returns how many arrived, 0 for EOF. A reader that keeps its scratch buffer pays per byte
    /// received, not per read. With a `deadline`, throws `ConnectionEnd.timedOut` when nothing arrives
    /// before it.
    package func receive(into scratch: inout [UInt8], deadline: Date? = nil) throws -> Int {
        while true {
            let count = scratch.withUnsafeMutableBytes { buffer in
                recv(fd, buffer.baseAddress, buffer.count, 0)
            }
            if count >= 0 { return count }
            switch errno {
            case EINTR:
                continue
            case EAGAIN, EWOULDBLOCK:
                if let deadline {
                    let remaining = deadline.timeIntervalSinceNow
                    guard remaining > 0, try wait(timeout: remaining) else { throw ConnectionEnd.timedOut }
                } else {
                    try wait()
                }
            default:
                throw ConnectionEnd.ioFailure(errno)
            }
        }
    }

    /// Holds the connection, discarding anything the client sends, until it closes or the server stops.
    package func holdUntilPeerCloses() {
        do {
            while try !readSome().isEmpty {}
        } catch {
            return
        }
    }

    /// Reads and discards input for up to `timeout` seconds or until EOF (or `maxBytes` have been read),
    /// so a close right after an error answer does not turn into a reset that destroys the answer before
    /// the client reads it.
    package func drainBeforeClose(timeout: TimeInterval, maxBytes: Int = .max) {
        let deadline = Date().addingTimeInterval(timeout)
        var drained = 0
        do {
            while deadline.timeIntervalSinceNow > 0 && drained < maxBytes {
                guard try wait(timeout: deadline.timeIntervalSinceNow) else { return }
                let count = try readSome().count
                if count == 0 { return }
                drained += count
            }
        } catch {
            return
        }
    }

    // MARK: - Writing

    /// Sends a FIN now (the client sees EOF) while still allowing reads.
    package func finishWriting() {
        _ = shutdown(fd, Int32(SHUT_WR))
    }

    /// Writes all of `text` as UTF-8.
    package func write(_ text: String) throws {
        try write(Data(text.utf8))
    }

    /// Writes all of `data`, looping over partial writes and waiting while the send buffer is full.
    package func write(_ data: Data) throws {
        try data.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress else { return }
            var offset = 0
            while offset < buffer.count {
                let sent = send(fd, base + offset, buffer.count - offset, POSIXSocket.sendFlags)
                if sent > 0 {
                    offset += sent
                    continue
                }
                if sent == 0 { throw ConnectionEnd.ioFailure(EPIPE) }
                switch errno {
                case EINTR:
                    continue
                case EAGAIN, EWOULDBLOCK:
                    try wait(forWriting: true)
                default:
                    throw ConnectionEnd.ioFailure(errno)
                }
            }
        }
    }
}
