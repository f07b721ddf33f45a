#if canImport(CCurlShim)
    import CCurlShim
    import Foundation
    import FoundationNetworking

    /// The libcurl transport: one multi handle and one event-loop thread per transport.
    ///
    /// Design (measured in LIBCURL.md): the loop thread owns the multi handle and every easy handle.
    /// Other threads only append commands to the inbox and call `curl_multi_wakeup`, libcurl's one
    /// thread-safe entry point, once per burst. The loop swaps the inbox out under the lock and runs
    /// the commands without it, so a libcurl callback that cancels (and so posts) cannot deadlock.
    /// All events of a transfer come from the loop thread, hence serially.
    final class CurlTransport: Transport, @unchecked Sendable {
        // Safe: `multi` is only used on the loop thread, apart from `ccurl_multi_wakeup` (thread-safe);
        // the inbox lives behind its lock; `bodiesToFile` is set once in `init`.
        private let multi: UnsafeMutableRawPointer
        private let inbox = Locked(Inbox())
        private let bodiesToFile: CurlTransport?

        /// What other threads ask of the loop.
        enum Command {
            case start(CurlTransfer)
            case cancel(CurlTransfer)
            /// Flow control: the receiver asked for more; the transfer may read again (see ``CurlTransfer``).
            case resume(CurlTransfer)
        }

        private struct Inbox {
            var commands: [Command] = []
            /// A wakeup was sent and the loop has not yet taken the commands: no need for another.
            var wakeupPending = false
        }

        /// The process's libcurl transports, created on first use; or why libcurl cannot be used.
        static let shared: Result<CurlTransport, ConnectionTransport.UnavailableError> = {
            if let reason = ccurl_load() {
                return .failure(ConnectionTransport.UnavailableError(reason: String(cString: reason)))
            }
            // Bodies saved to a file get a loop of their own: their disk writes run on its thread,
            // so a slow disk never delays the small requests of the other loop.
            guard let files = CurlTransport(bodiesToFile: nil), let transport = CurlTransport(bodiesToFile: files)
            else {
                return .failure(ConnectionTransport.UnavailableError(reason: "libcurl could not create a multi handle"))
            }
            return .success(transport)
        }()

        /// Per-host connection limit (as URLSession's `httpMaximumConnectionsPerHost` in ConnectionKit);
        /// transfers beyond it wait for a connection.
        static let maximumConnectionsPerHost = 64

        private init?(bodiesToFile: CurlTransport?) {
            guard let multi = ccurl_multi_new(Self.maximumConnectionsPerHost, 2 * Self.maximumConnectionsPerHost)
            else { return nil }
            self.multi = multi
            self.bodiesToFile = bodiesToFile
            let thread = Thread { [self] in runLoop() }
            thread.name = "ConnectionKit.libcurl"
            thread.start()
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

        /// Hands `command` to the loop thread; wakes it unless a wakeup is already on its way.
        func post(_ command: Command) {
            let wake = inbox.withLock { inbox in
                inbox.commands.append(command)
                defer { inbox.wakeupPending = true }
                return !inbox.wakeupPending
            }
            if wake { _ = ccurl_multi_wakeup(multi) }
        }

        // MARK: - The loop thread

        private func runLoop() {
            // The transports live as long as the process.
            while true {
                let commands = inbox.withLock { inbox in
                    defer { inbox = Inbox() }
                    return inbox.commands
                }
                for command in commands {
                    switch command {
                    case .start(let transfer): start(transfer)
                    case .cancel(let transfer): remove(transfer)
                    case .resume(let transfer): transfer.resumeIfPaused()
                    }
                }
                _ = ccurl_multi_perform(multi)
                var result: Int32 = 0
                while let userdata = ccurl_multi_next_done(multi, &result) {
                    // Takes back the +1 of `start`.
                    let transfer = Unmanaged<CurlTransfer>.fromOpaque(userdata).takeRetainedValue()
                    transfer.active = false
                    transfer.finish(result: result)
                }
                // Work posted by the callbacks above (a retry, the next hop of a redirect) starts without a poll.
                let idle = inbox.withLock { $0.commands.isEmpty }
                if idle { _ = ccurl_multi_poll(multi, 1000) }
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
        }

        /// A cancel: the transfer leaves the multi handle, so its completion can never arrive.
        private func remove(_ transfer: CurlTransfer) {
            guard transfer.active, let xfer = transfer.xfer else { return }
            transfer.active = false
            _ = ccurl_xfer_remove(multi, xfer)
            transfer.release()
            Unmanaged.passUnretained(transfer).release()
        }
    }
#endif
