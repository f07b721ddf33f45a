#if canImport(CCurlShim)
    import CCurlShim
    import Foundation
    import FoundationNetworking

    /// The libcurl transport: ``memoryLoopCount`` event loops (``CurlLoop``) for bodies kept in memory and
    /// one for bodies saved to a file, until it is shut down with its client.
    ///
    /// With one loop, its thread was the bottleneck at 16 and more requests in flight (docs/benchmarks.md):
    /// the kernel's and libcurl's work per transfer all ran on it. The in-memory loops share the per-host
    /// limit through ``CurlAdmission``, so one host never gets more than ``maximumConnectionsPerHost``
    /// connections whichever loops its requests run on.
    final class CurlTransport: Transport, @unchecked Sendable {
        // Safe: every stored property is a `let` of a thread-safe type, set in `init`.
        private let memoryLoops: [CurlLoop]
        private let fileLoop: CurlLoop
        private let admission: CurlAdmission

        /// The shared client's libcurl transports, created on first use; or why libcurl cannot be used.
        static let shared: Result<CurlTransport, ConnectionTransport.UnavailableError> = {
            defer { sharedCreated.withLock { $0 = true } }
            return make(threadName: "CK0.curl")
        }()

        /// Whether ``shared`` was created (a shutdown of the shared client does not create it to stop it).
        static let sharedCreated = Locked(false)

        /// Per-host connection limit (as URLSession's `httpMaximumConnectionsPerHost` in ConnectionKit);
        /// transfers beyond it wait for a connection.
        static let maximumConnectionsPerHost = 64

        /// Connections kept open in all, per lane.
        static let maximumConnections = 2 * maximumConnectionsPerHost

        /// How many loops carry bodies kept in memory: one per core, up to four (a divisor of the limits,
        /// which they share out).
        static let memoryLoopCount = [4, 2, 1].first { $0 <= ProcessInfo.processInfo.activeProcessorCount } ?? 1

        /// A transport whose loops run on threads named `threadName`, `threadName.1`, … (bodies kept in
        /// memory) and `threadName.file` (bodies saved to a file); or why libcurl cannot be used.
        static func make(threadName: String) -> Result<CurlTransport, ConnectionTransport.UnavailableError> {
            if let reason = ccurl_load() {
                return .failure(ConnectionTransport.UnavailableError(reason: String(cString: reason)))
            }
            let refused = ConnectionTransport.UnavailableError(reason: "libcurl could not start an event loop")
            // Bodies saved to a file get a loop of their own: their disk writes run on its thread,
            // so a slow disk never delays the small requests of the other loops.
            guard
                let files = CurlLoop(
                    index: 0, perHost: maximumConnectionsPerHost, total: maximumConnections, admission: nil,
                    threadName: threadName + ".file")
            else { return .failure(refused) }
            let count = memoryLoopCount
            let admission = CurlAdmission(loops: count, perLoop: maximumConnectionsPerHost / count)
            var loops: [CurlLoop] = []
            for index in 0..<count {
                guard
                    let loop = CurlLoop(
                        index: index, perHost: maximumConnectionsPerHost / count, total: maximumConnections / count,
                        admission: admission, threadName: index == 0 ? threadName : "\(threadName).\(index)")
                else {
                    (loops + [files]).forEach { $0.stop() }
                    return .failure(refused)
                }
                loops.append(loop)
            }
            return .success(CurlTransport(memoryLoops: loops, fileLoop: files, admission: admission))
        }

        private init(memoryLoops: [CurlLoop], fileLoop: CurlLoop, admission: CurlAdmission) {
            self.memoryLoops = memoryLoops
            self.fileLoop = fileLoop
            self.admission = admission
        }

        /// The kernel ids of the loop threads that have started.
        var threadIDs: [Int32] {
            (memoryLoops + [fileLoop]).compactMap(\.threadID)
        }

        /// Ends the transfers still in the loops or held for a connection (each completes with
        /// `clientShutDown`), then the loop threads, and returns once they are gone. A transfer started
        /// afterwards fails the same way. Never call it on a loop thread.
        func shutdown() {
            let held = admission.stop()
            let loops = memoryLoops + [fileLoop]
            loops.forEach { $0.stop() }
            loops.forEach { $0.join() }
            held.forEach { $0.failShutDownLater() }
        }

        /// Readies a transfer for one of the in-memory loops, or for the loop of bodies saved to a file for
        /// ``TransferOptions/Lane/savedToFile``, through the class's proxy (`nil`: what the environment
        /// says, `http_proxy`, `https_proxy`, `no_proxy`, read by libcurl itself) and with its TLS
        /// configuration resolved here, on the caller's thread (it may read files and a credential store).
        /// - Throws: the `ConnectionError` (`.tls` or `.invalidRequest`) of a TLS configuration that
        ///   cannot be resolved; nothing is sent.
        func prepareTransfer(_ request: URLRequest, options: TransferOptions) throws(ConnectionError)
            -> any PreparedTransfer
        {
            let transfer = CurlTransfer(
                request: request, bodyFile: options.bodyFile, transport: self,
                savedToFile: options.lane == .savedToFile, proxy: options.proxy, streamedBody: options.streamedBody)
            if let tls = options.tls { transfer.tls = try CurlTLSSettings(tls) }
            return transfer
        }

        /// Hands `command` to the loop of its transfer. A transfer kept in memory starts on the loop the
        /// admission picks, or waits there for a connection; its cancel and resume follow it.
        func post(_ command: CurlLoop.Command) {
            guard let transfer = command.transfer else {
                (memoryLoops + [fileLoop]).forEach { $0.post(command) }
                return
            }
            guard !transfer.savedToFile else {
                fileLoop.post(command)
                return
            }
            switch command {
            case .start:
                let (loop, accepted) = admission.admit(transfer)
                if let loop {
                    memoryLoops[loop].post(command)
                } else if !accepted {
                    transfer.failShutDownLater()
                }
            case .cancel:
                switch admission.withdraw(transfer) {
                case .loop(let loop): memoryLoops[loop].post(command)
                case .withdrawn: transfer.release()
                case .none: break
                }
            case .resume:
                if let loop = admission.loop(of: transfer) { memoryLoops[loop].post(command) }
            case .stop:
                break  // has no transfer: posted to every loop above
            }
        }
    }
#endif
