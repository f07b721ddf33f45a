#if canImport(CCurlShim)
    import CCurlShim
    import Foundation
    import FoundationNetworking

    /// The libcurl transport: one multi handle and one event-loop thread per transport, until it is shut
    /// down with its client.
    ///
    /// Design (measured in LIBCURL.md): the loop thread owns the multi handle and every easy handle.
    /// Other threads only append commands to the inbox and call `curl_multi_wakeup`, libcurl's one
    /// thread-safe entry point, once per burst. The loop swaps the inbox out under the lock and runs
    /// the commands without it, so a libcurl callback that cancels (and so posts) cannot deadlock.
    /// All events of a transfer come from the loop thread, hence serially.
    final class CurlTransport: Transport, @unchecked Sendable {
        // Safe: `multi` and `live` are only used on the loop thread, apart from `ccurl_multi_wakeup`
        // (thread-safe) and the free in `deinit`; the inbox lives behind its lock; `bodiesToFile` and
        // `thread` are set once in `init`.
        private let multi: UnsafeMutableRawPointer
        private let inbox = Locked(Inbox())
        private let bodiesToFile: CurlTransport?
        private var thread: OwnedThread?
        /// The transfers in the multi handle, which a shutdown ends.
        private var live: [ObjectIdentifier: CurlTransfer] = [:]

        /// What other threads ask of the loop.
        enum Command {
            case start(CurlTransfer)
            case cancel(CurlTransfer)
            /// Flow control: the receiver asked for more; the transfer may read again (see ``CurlTransfer``).
            case resume(CurlTransfer)
            /// The client shuts down: the transfers still in the loop end, and the loop thread ends.
            case stop
        }

        private struct Inbox {
            var commands: [Command] = []
            /// A wakeup was sent and the loop has not yet taken the commands: no need for another.
            var wakeupPending = false
            /// The stop was posted: nothing more reaches the loop.
            var stopped = false
        }

        /// The shared client's libcurl transports, created on first use; or why libcurl cannot be used.
        static let shared: Result<CurlTransport, ConnectionTransport.UnavailableError> = {
            defer { sharedCreated.withLock { $0 = true } }
            return make(threadName: "CK0.curl")
        }()

        /// Whether ``shared`` was created (a shutdown of the shared client does not create it to stop it).
        static let sharedCreated = Locked(false)

        /// A transport and its lane for bodies saved to a file, each on a thread of its own named
        /// `threadName` (and `threadName.file`); or why libcurl cannot be used.
        static func make(threadName: String) -> Result<CurlTransport, ConnectionTransport.UnavailableError> {
            if let reason = ccurl_load() {
                return .failure(ConnectionTransport.UnavailableError(reason: String(cString: reason)))
            }
            // Bodies saved to a file get a loop of their own: their disk writes run on its thread,
            // so a slow disk never delays the small requests of the other loop.
            guard let files = CurlTransport(bodiesToFile: nil, threadName: threadName + ".file") else {
                return .failure(ConnectionTransport.UnavailableError(reason: "libcurl could not start an event loop"))
            }
            guard let transport = CurlTransport(bodiesToFile: files, threadName: threadName) else {
                files.shutdown()
                return .failure(ConnectionTransport.UnavailableError(reason: "libcurl could not start an event loop"))
            }
            return .success(transport)
        }

        /// Per-host connection limit (as URLSession's `httpMaximumConnectionsPerHost` in ConnectionKit);
        /// transfers beyond it wait for a connection.
        static let maximumConnectionsPerHost = 64

        private init?(bodiesToFile: CurlTransport?, threadName: String) {
            guard let multi = ccurl_multi_new(Self.maximumConnectionsPerHost, 2 * Self.maximumConnectionsPerHost)
            else { return nil }
            self.multi = multi
            self.bodiesToFile = bodiesToFile
            guard let thread = OwnedThread(name: threadName, body: { [self] in runLoop() }) else { return nil }
            self.thread = thread
        }

        /// The kernel ids of the loop threads (this transport's and its file lane's) that have started.
        var threadIDs: [Int32] {
            [thread?.threadID].compactMap { $0 } + (bodiesToFile?.threadIDs ?? [])
        }

        /// Ends the transfers still in the loops (each completes with `clientShutDown`), then the loop
        /// threads, and returns once they are gone. A transfer started afterwards fails the same way.
        /// Never call it on a loop thread.
        func shutdown() {
            post(.stop)
            thread?.join()
            bodiesToFile?.shutdown()
        }

        /// Readies a transfer on this transport's loop, or on the loop of bodies saved to a file for
        /// ``TransferOptions/Lane/savedToFile``, through the class's proxy (`nil`: what the environment
        /// says, `http_proxy`, `https_proxy`, `no_proxy`, read by libcurl itself) and with its TLS
        /// configuration resolved here, on the caller's thread (it may read files and a credential store).
        /// - Throws: the `ConnectionError` (`.tls` or `.invalidRequest`) of a TLS configuration that
        ///   cannot be resolved; nothing is sent.
        func prepareTransfer(_ request: URLRequest, options: TransferOptions) throws(ConnectionError)
            -> any PreparedTransfer
        {
            let loop = options.lane == .savedToFile ? bodiesToFile ?? self : self
            let transfer = CurlTransfer(
                request: request, bodyFile: options.bodyFile, transport: loop, queuesBody: loop.bodiesToFile == nil,
                proxy: options.proxy)
            if let tls = options.tls { transfer.tls = try CurlTLSSettings(tls) }
            return transfer
        }

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
            if refused, case .start(let transfer) = command {
                // Never on the caller's thread inside `startTransfer` (the threading contract).
                DispatchQueue.global().async { transfer.fail(ConnectionError(.clientShutDown)) }
            }
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
                _ = ccurl_multi_perform(multi)
                var result: Int32 = 0
                while let userdata = ccurl_multi_next_done(multi, &result) {
                    // Takes back the +1 of `start`.
                    let transfer = Unmanaged<CurlTransfer>.fromOpaque(userdata).takeRetainedValue()
                    transfer.active = false
                    live.removeValue(forKey: ObjectIdentifier(transfer))
                    transfer.finish(result: result)
                }
                // Work posted by the callbacks above (a retry, the next hop of a redirect) starts without a poll.
                let idle = inbox.withLock { $0.commands.isEmpty }
                if idle && !stopping { _ = ccurl_multi_poll(multi, 1000) }
            }
            endLiveTransfers()
        }

        // The multi handle outlives the loop: a thread that posted just before the stop may still be
        // waking it.
        deinit {
            ccurl_multi_free(multi)
        }

        /// At the stop: every transfer still in the multi handle leaves it and completes with `clientShutDown`.
        private func endLiveTransfers() {
            let ending = live.values
            live = [:]
            for transfer in ending {
                transfer.active = false
                if let xfer = transfer.xfer { _ = ccurl_xfer_remove(multi, xfer) }
                transfer.fail(ConnectionError(.clientShutDown))
                // The multi handle's +1, taken in `start`.
                Unmanaged.passUnretained(transfer).release()
            }
        }

        private func start(_ transfer: CurlTransfer) {
            guard !transfer.isCancelled else {
                transfer.release()
                return
            }
            if let error = transfer.makeHandle() {
                transfer.fail(error)
                return
            }
            guard let xfer = transfer.xfer else { return }
            // The multi handle's +1 on the transfer, given back when it finishes or is removed.
            let retained = Unmanaged.passRetained(transfer)
            guard ccurl_xfer_add(multi, xfer) == 0 else {
                retained.release()
                transfer.fail(
                    CurlErrorMapping.error(
                        .unknown, "libcurl refused the transfer", detail: "", url: transfer.request.url))
                return
            }
            transfer.active = true
            live[ObjectIdentifier(transfer)] = transfer
        }

        /// A cancel: the transfer leaves the multi handle, so its completion can never arrive.
        private func remove(_ transfer: CurlTransfer) {
            guard transfer.active, let xfer = transfer.xfer else { return }
            transfer.active = false
            live.removeValue(forKey: ObjectIdentifier(transfer))
            _ = ccurl_xfer_remove(multi, xfer)
            transfer.release()
            Unmanaged.passUnretained(transfer).release()
        }
    }
#endif
