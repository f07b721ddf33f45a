import Dispatch

extension DispatchSourceTimer {
    /// Drops a timer that was created but never resumed. libdispatch traps ("release of an inactive object")
    /// when a source that was never activated is deallocated, so cancel it and let it run its cancellation.
    func discardUnresumed() {
        cancel()
        resume()
    }
}
