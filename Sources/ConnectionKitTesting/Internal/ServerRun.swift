import Foundation

/// One start-to-stop lifetime of the listener: its socket, its wake signal and the threads serving it.
final class ServerRun: Sendable {
    /// The listening socket; closed by the accept thread when it ends.
    let listenFD: Int32
    /// Signalled by `stop()`; every thread of this run polls it.
    let wake: WakeSignal
    /// Entered by the accept thread and by every connection thread; `stop()` waits on it.
    let threads = DispatchGroup()

    init(listenFD: Int32, wake: WakeSignal) {
        self.listenFD = listenFD
        self.wake = wake
    }
}
