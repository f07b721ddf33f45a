#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A self-pipe that every server thread polls next to its socket: once signalled it stays readable, so every
/// wait in the server ends at once when `TestServer.stop()` runs.
package final class WakeSignal: Sendable {
    // MARK: - Storage

    /// The read end; becomes readable (and stays so) after `signal()`.
    package let readFD: Int32
    private let writeFD: Int32
    private let signalled = Locked(false)

    // MARK: - Init

    package init() throws {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else {
            throw SocketFailure(operation: "pipe", errno: errno)
        }
        readFD = fds[0]
        writeFD = fds[1]
        POSIXSocket.setCloseOnExec(readFD)
        POSIXSocket.setCloseOnExec(writeFD)
    }

    deinit {
        close(readFD)
        close(writeFD)
    }

    // MARK: - Signalling

    /// Makes `readFD` readable for good. Later calls do nothing.
    package func signal() {
        let first = signalled.withLock { value -> Bool in
            defer { value = true }
            return !value
        }
        guard first else { return }
        var byte: UInt8 = 1
        _ = write(writeFD, &byte, 1)
    }
}
