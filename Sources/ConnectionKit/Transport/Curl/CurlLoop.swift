#if canImport(CCurlShim)
    import CCurlShim
    import Foundation

    /// One event-loop thread of a ``CurlTransport`` and the multi handle it owns, until the transport
    /// shuts down.
    ///
    /// Design (measured in LIBCURL.md): the loop thread owns the multi handle and every easy handle in it.
    /// Other threads only append commands to the inbox and call `curl_multi_wakeup`, libcurl's one
    /// thread-safe entry point, once per burst. The loop swaps the inbox out under the lock and runs
    /// the commands without it, so a libcurl callback that cancels (and so posts) cannot deadlock.
    /// All events of a transfer come from the loop thread, hence serially.
    final class CurlLoop: @unchecked Sendable {
        // Safe: `multi`, `live` and `admitted` are only used on the loop thread, apart from
        // `ccurl_multi_wakeup` (thread-safe) and the free in `deinit`; the inbox lives behind its lock;
        // the rest is set once in `init`.
        private let multi: UnsafeMutableRawPointer
        private let inbox = Locked(Inbox())
        private var thread: OwnedThread?
        /// The transfers in the multi handle, which a shutdown ends.
        private var live: [ObjectIdentifier: CurlTransfer] = [:]
        /// Held transfers the admission handed to this loop when one of its transfers left.
        private var admitted: [CurlTransfer] = []
        /// Transfers that gathered pieces of a saved body in this iteration (``CurlTransfer/flushGathered()``).
        private var gathering: [CurlTransfer] = []
        /// Which of the transport's in-memory loops this is, for ``admission``.
        let index: Int
        /// The in-memory loops' per-host admission (`nil` on the lane of bodies saved to a file).
        private let admission: CurlAdmission?

        /// What other threads ask of the loop.
        enum Command {
            case start(CurlTransfer)
            case cancel(CurlTransfer)
            /// Flow control: the receiver asked for more; the transfer may read again (see ``CurlTransfer``).
            case resume(CurlTransfer)
            /// The client shuts down: the transfers still in the loop end, and the loop thread ends.
            case stop

            /// The transfer the command is about (`nil` for the stop).
            var transfer: CurlTransfer? {
                switch self {
                case .start(let transfer), .cancel(let transfer), .resume(let transfer): transfer
                case .stop: nil
                }
            }
        }

        private struct Inbox {
            var commands: [Command] = []
            /// A wakeup was sent and the loop has not yet taken the commands: no need for another.
            var wakeupPending = false
            /// The stop was posted: nothing more reaches the loop.
            var stopped = false
        }

        /// A loop whose multi handle keeps at most `perHost` connections to one host and `total` in all.
        init?(index: Int, perHost: Int, total: Int, admission: CurlAdmission?, threadName: String) {
            guard let multi = ccurl_multi_new(perHost, total) else { return nil }
            self.multi = multi
            self.index = index
            self.admission = admission
            guard let thread = OwnedThread(name: threadName, body: { [self] in runLoop() }) else { return nil }
            self.thread = thread
        }

        /// The kernel id of the loop thread, once it has started.
        var threadID: Int32? { thread?.threadID }

        /// Posts the stop (see ``Command/stop``).
        func stop() { post(.stop) }

        /// Returns once the loop thread is gone. Never call it on a loop thread.
        func join() { thread?.join() }

        /// Hands `command` to the loop thread; wakes it unless a wakeup is already on its way. After the
        /// stop, a start fails the transfer and anything else is dropped.
        func post(_ command: Command) {
            let (wake, refused) = inbox.withLock { inbox -> (Bool, Bool) in
                guard !inbox.stopped else { return (false, true) }
                if case .stop = command { inbox.stopped = true }
                inbox.commands.append(command)
                defer { inbox.wakeupPending = true }
                return (!inbox.wakeupPending, false)
            }
            if wake { _ = ccurl_multi_wakeup(multi) }
            if refused, case .start(let transfer) = command { transfer.failShutDownLater() }
        }

        // MARK: - The loop thread

        private func runLoop() {
            // Runs until the client's shutdown posts `stop` (the shared client's: the end of the process).
            var stopping = false
            while !stopping {
                let commands = inbox.withLock { inbox in
                    defer { (inbox.commands, inbox.wakeupPending) = ([], false) }
                    return inbox.commands
                }
                for command in commands {
                    switch command {
                    case .start(let transfer): start(transfer)
                    case .cancel(let transfer): remove(transfer)
                    case .resume(let transfer): transfer.resumeIfPaused()
                    case .stop: stopping = true
                    }
                }
                startAdmitted()
                _ = ccurl_multi_perform(multi)
                // One hand-off per transfer and iteration for what libcurl read, before any ending.
                if !gathering.isEmpty {
                    gathering.forEach { $0.flushGathered() }
                    gathering.removeAll(keepingCapacity: true)
                }
                var result: Int32 = 0
                while let userdata = ccurl_multi_next_done(multi, &result) {
                    // Takes back the +1 of `start`.
                    let transfer = Unmanaged<CurlTransfer>.fromOpaque(userdata).takeRetainedValue()
                    transfer.active = false
                    live.removeValue(forKey: ObjectIdentifier(transfer))
                    // Out of the count before its ending is delivered: the caller's next request, started
                    // from the ending, finds this loop's connection free.
                    left(transfer)
                    transfer.finish(result: result)
                }
                // Work posted by the callbacks above (a retry, the next hop of a redirect) and transfers
                // admitted in the place of those that ended start without a poll.
                let idle = admitted.isEmpty && inbox.withLock { $0.commands.isEmpty }
                if idle && !stopping { _ = ccurl_multi_poll(multi, 1000) }
            }
            endLiveTransfers()
        }

        // The multi handle outlives the loop: a thread that posted just before the stop may still be
        // waking it.
        deinit {
            ccurl_multi_free(multi)
        }

        /// On the loop thread, from a write callback: `transfer` gathered pieces to flush after this iteration.
        func flushAfterIteration(_ transfer: CurlTransfer) {
            gathering.append(transfer)
        }

        /// A transfer left the multi handle (or never got in): its place goes to a held one, if any.
        private func left(_ transfer: CurlTransfer) {
            if let next = admission?.left(transfer, loop: index) { admitted.append(next) }
        }

        /// Starts the transfers the admission handed over; those may fail at once and hand over more.
        private func startAdmitted() {
            while !admitted.isEmpty {
                let batch = admitted
                admitted = []
                batch.forEach(start)
            }
        }

        /// At the stop: every transfer still in the multi handle leaves it and completes with `clientShutDown`.
        private func endLiveTransfers() {
            let ending = live.values
            live = [:]
            for transfer in ending {
                transfer.active = false
                if let xfer = transfer.xfer { _ = ccurl_xfer_remove(multi, xfer) }
                left(transfer)
                transfer.fail(ConnectionError(.clientShutDown))
                // The multi handle's +1, taken in `start`.
                Unmanaged.passUnretained(transfer).release()
            }
            // The admission stopped before the loop did: nothing was handed over. Anything that was is
            // failed, not dropped.
            admitted.forEach { $0.fail(ConnectionError(.clientShutDown)) }
            admitted = []
        }

        private func start(_ transfer: CurlTransfer) {
            guard !transfer.isCancelled else {
                left(transfer)
                transfer.release()
                return
            }
            if let error = transfer.makeHandle() {
                left(transfer)
                transfer.fail(error)
                return
            }
            guard let xfer = transfer.xfer else {
                left(transfer)
                return
            }
            // The multi handle's +1 on the transfer, given back when it finishes or is removed.
            let retained = Unmanaged.passRetained(transfer)
            guard ccurl_xfer_add(multi, xfer) == 0 else {
                retained.release()
                left(transfer)
                transfer.fail(
                    CurlErrorMapping.error(
                        .unknown, "libcurl refused the transfer", detail: "", url: transfer.request.url))
                return
            }
            transfer.active = true
            transfer.loop = self
            live[ObjectIdentifier(transfer)] = transfer
        }

        /// A cancel: the transfer leaves the multi handle, so its completion can never arrive.
        private func remove(_ transfer: CurlTransfer) {
            guard transfer.active, let xfer = transfer.xfer else { return }
            transfer.active = false
            live.removeValue(forKey: ObjectIdentifier(transfer))
            _ = ccurl_xfer_remove(multi, xfer)
            left(transfer)
            transfer.release()
            Unmanaged.passUnretained(transfer).release()
        }
    }
#endif
