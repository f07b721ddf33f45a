import Foundation

/// One start-to-stop lifetime of a listener: its socket, its wake signal, the threads serving it and
/// what serves each connection (held here, so that a stopped listener lets go of its server).
package final class ServerRun: Sendable {
    /// The listening socket; closed by the accept thread when it ends.
    package let listenFD: Int32
    /// Signalled by `stop()`; every thread of this run polls it.
    package let wake: WakeSignal
    /// Entered by the accept thread and by every connection thread; `stop()` waits on it.
    package let threads = DispatchGroup()
    /// Serves one accepted connection (with its id) on the connection's thread.
    package let serve: HTTPListener.Serve

    package init(listenFD: Int32, wake: WakeSignal, serve: @escaping HTTPListener.Serve) {
        self.listenFD = listenFD
        self.wake = wake
        self.serve = serve
    }
}
