import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Holds new connections on the accept thread until their first request head is complete, reading
/// all of them with one `poll`: a connection that sends nothing, or sends slowly, costs a descriptor
/// and its bytes, never a thread. Only a complete head is handed to a connection thread; a head over
/// its budget or late past its deadline is closed here. Beyond ``Limits/maximumWaiting`` the longest
/// waiting connection is closed, so idle sockets cannot keep a new one out.
package struct HeadGate {
    /// What a connection may cost before it has sent a whole head.
    package struct Limits: Sendable {
        /// The most bytes before the head's end (stray empty lines included); more is refused with 431.
        package var headBytes: Int
        /// Seconds from accept to the head's end.
        package var timeout: TimeInterval
        /// Connections held at once.
        package var maximumWaiting: Int

        package init(headBytes: Int, timeout: TimeInterval, maximumWaiting: Int) {
            self.headBytes = headBytes
            self.timeout = timeout
            self.maximumWaiting = maximumWaiting
        }
    }

    private struct Waiting {
        let fd: Int32
        var deadline: UInt64
        var bytes: [UInt8] = []
        /// Stray empty lines read before the head, counted against the budget.
        var skipped = 0
        /// Refused with 431: what it still sends is read and dropped (up to the budget, for 1 s), so that
        /// the close is a FIN and the answer is not destroyed by a reset.
        var draining = false
    }

    /// New connections accepted per round, so that heads already sent are read before more arrive.
    private static let acceptsPerRound = 16

    private let limits: Limits
    private var waiting: [Waiting] = []
    private var scratch = [UInt8](repeating: 0, count: 16_384)

    package init(limits: Limits) {
        self.limits = limits
    }

    // MARK: - One round

    /// Polls the wake pipe, the listener and every waiting connection once; hands each complete head to
    /// `admit` (the descriptor and the bytes read so far). Returns `false` when the wake pipe fired.
    package mutating func round(
        listenFD: Int32, wakeFD: Int32, admit: (Int32, [UInt8]) -> Void
    ) -> Bool {
        var descriptors = [
            pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0),
            pollfd(fd: listenFD, events: Int16(POLLIN), revents: 0),
        ]
        descriptors += waiting.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
        let result = poll(&descriptors, nfds_t(descriptors.count), pollTimeout())
        if result < 0 && errno != EINTR { return false }
        if descriptors[0].revents != 0 {
            waiting.forEach { close($0.fd) }
            waiting.removeAll()
            return false
        }
        let now = DispatchTime.now().uptimeNanoseconds
        var kept: [Waiting] = []
        kept.reserveCapacity(waiting.count)
        for (index, var connection) in waiting.enumerated() {
            if descriptors[index + 2].revents != 0 {
                switch read(&connection) {
                case .complete:
                    admit(connection.fd, connection.bytes)
                    continue
                case .ended:
                    close(connection.fd)
                    continue
                case .tooLarge:
                    refuse(&connection, now: now)
                case .incomplete:
                    break
                }
            }
            if connection.deadline <= now {
                close(connection.fd)
            } else {
                kept.append(connection)
            }
        }
        waiting = kept
        if descriptors[1].revents != 0 { acceptSome(listenFD) }
        return true
    }

    // MARK: - Steps

    private enum Progress {
        case incomplete, complete, ended, tooLarge
    }

    /// Reads what `connection` has sent and says whether its head is complete.
    private mutating func read(_ connection: inout Waiting) -> Progress {
        let count = scratch.withUnsafeMutableBytes { recv(connection.fd, $0.baseAddress, $0.count, 0) }
        if count < 0 { return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? .incomplete : .ended }
        if count == 0 { return .ended }
        if connection.draining {
            connection.skipped += count
            return connection.skipped > 2 * limits.headBytes ? .ended : .incomplete
        }
        var searchFrom = max(0, connection.bytes.count - 3)
        connection.bytes.append(contentsOf: scratch[0..<count])
        var start = 0
        while start + 1 < connection.bytes.count && connection.bytes[start] == 13 && connection.bytes[start + 1] == 10 {
            start += 2
        }
        if start > 0 {
            connection.bytes.removeFirst(start)
            connection.skipped += start
            searchFrom = 0
        }
        if connection.skipped + connection.bytes.count > limits.headBytes { return .tooLarge }
        let end = HTTPRequestReader.find([13, 10, 13, 10], in: connection.bytes, from: searchFrom)
        return end == nil ? .incomplete : .complete
    }

    /// Accepts up to ``acceptsPerRound`` connections, closing the longest waiting ones beyond the limit.
    private mutating func acceptSome(_ listenFD: Int32) {
        let timeout = UInt64(max(0, limits.timeout) * 1e9)
        for _ in 0..<Self.acceptsPerRound {
            guard let fd = POSIXSocket.acceptConnection(from: listenFD) else {
                // Out of descriptors: back off briefly instead of spinning on a listener that stays readable.
                if errno == EMFILE || errno == ENFILE { _ = poll(nil, 0, 10) }
                break
            }
            waiting.append(Waiting(fd: fd, deadline: DispatchTime.now().uptimeNanoseconds + timeout))
        }
        let surplus = waiting.count - max(1, limits.maximumWaiting)
        if surplus > 0 {
            waiting.prefix(surplus).forEach { POSIXSocket.closeWithReset($0.fd) }
            waiting.removeFirst(surplus)
        }
    }

    /// Answers 431 (best effort: the socket never blocks), sends a FIN and lets it drain for a second.
    private func refuse(_ connection: inout Waiting, now: UInt64) {
        let answer = Array(
            "HTTP/1.1 431 Request Header Fields Too Large\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8)
        _ = answer.withUnsafeBytes { send(connection.fd, $0.baseAddress, $0.count, POSIXSocket.sendFlags) }
        _ = shutdown(connection.fd, Int32(SHUT_WR))
        connection.draining = true
        connection.bytes = []
        connection.deadline = min(connection.deadline, now + 1_000_000_000)
    }

    /// Milliseconds until the nearest deadline (-1 with nothing waiting).
    private func pollTimeout() -> Int32 {
        guard let nearest = waiting.map(\.deadline).min() else { return -1 }
        let now = DispatchTime.now().uptimeNanoseconds
        guard nearest > now else { return 0 }
        return Int32(min((nearest - now) / 1_000_000 + 1, 60_000))
    }
}
