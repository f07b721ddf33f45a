import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension OfflineQueue {
    // MARK: - Starting through the queue

    /// Starts `request` normally; if it fails because the network is unreachable (no connection, DNS
    /// failure, cannot connect, connection lost, or a timeout before any response), it is enqueued and
    /// `onOffline` runs on the request's ``AnyConnectionRequest/callbackQueue`` with the queued operation
    /// **instead of** the failure handler. Success and every other failure reach the request's handlers as
    /// usual. `value()` callers of the run still get the error, at once.
    ///
    /// The write is stored and synced off the callback queue (which is never blocked by the sync);
    /// `onOffline` runs once it is durable and in ``pending``. If enqueueing fails (a full disk), the
    /// request's failure handler gets its original error instead, then. Exactly one of the two runs.
    public func start(_ request: AnyConnectionRequest, onOffline: @escaping @Sendable (QueuedOperation) -> Void) {
        OfflineInterception.shared.intercept(request) { [weak self, weak request] error in
            guard let self, let request,
                Self.isUnreachable(error, responseArrived: request.responseHead != nil)
            else { return false }
            self.storeOffline(request, failedWith: error, onOffline: onOffline)
            return true
        }
        request.start()
    }

    /// Enqueues `request`, whose ending was taken over, on ``offlineStores``; then, on its callback queue,
    /// runs `onOffline`, or delivers `error` to its failure path when it could not be stored.
    private func storeOffline(
        _ request: AnyConnectionRequest, failedWith error: ConnectionError,
        onOffline: @escaping @Sendable (QueuedOperation) -> Void
    ) {
        let callbackQueue = request.callbackQueue
        offlineStores.async {
            do {
                let operation = try self.enqueue(request)
                callbackQueue.async { onOffline(operation) }
            } catch let storing {
                self.configuration.log("could not queue \(request.typeName) after it failed offline: \(storing)")
                callbackQueue.async { request.deliverFailureAfterTakeOver(error) }
            }
        }
    }

    // MARK: - Enqueueing

    /// Stores `request` for delivery and returns once it is safely on disk (synced: it survives the process
    /// being killed and a power cut). Builds it with ``AnyConnectionRequest/makeURLRequest()`` (without
    /// authorization, which is applied at send time), keeps its `Idempotency-Key` header or mints one, and
    /// removes secret headers, a password in the URL and secret query items. The request itself is not
    /// started and may be reused.
    ///
    /// Safe to call from many threads at once: enqueues that arrive while the journal is being synced are
    /// written and synced together (group commit), each returning once its own write is durable. Sequence
    /// numbers (delivery order) follow the order in which the calls joined the journal.
    ///
    /// Throws the `ConnectionError` `makeURLRequest()` throws, `invalidRequest` for a streamed body, or
    /// `fileSystem` when the operation could not be written or the queue is closed, with an
    /// ``OfflineQueueError`` of kind ``OfflineQueueError/Kind/full(pendingOperations:pendingBytes:)`` when
    /// storing it would pass ``Configuration/maximumPendingOperations`` or
    /// ``Configuration/maximumPendingBytes`` (nothing is stored then).
    @discardableResult
    public func enqueue(_ request: AnyConnectionRequest) throws -> QueuedOperation {
        let (built, url) = try Self.queueableRequest(request)
        var operation = Self.operation(for: built, url: url, of: request)
        let body = built.httpBody ?? Data()
        guard !state.withLock({ $0.delivery.isClosed }) else { throw request.contextualize(OfflineJournal.closedError) }
        try storeBody(body, of: &operation, for: request)
        operation = try commit(operation, bodyLength: body.count, for: request)
        kick()
        return operation
    }

    /// The request `request` builds, and its URL, when the queue can keep it (it has a URL and no streamed body).
    private static func queueableRequest(_ request: AnyConnectionRequest) throws -> (URLRequest, URL) {
        let built: URLRequest
        do {
            built = try request.makeURLRequest()
        } catch {
            throw request.contextualize(error, as: { .invalidRequest(reason: "\($0)") })
        }
        guard let url = built.url else {
            throw request.contextualize(ConnectionError(.invalidRequest(reason: "\(request.typeName) has no URL")))
        }
        guard built.httpBodyStream == nil else {
            throw request.contextualize(
                ConnectionError(.invalidRequest(reason: "a streamed body cannot be queued; provide `bodyData`")))
        }
        return (built, url)
    }

    /// The operation that stands for `built`, without its secrets and with an idempotency key; its body is
    /// stored by ``storeBody(_:of:for:)`` and its sequence number given by the journal.
    private static func operation(for built: URLRequest, url: URL, of request: AnyConnectionRequest) -> QueuedOperation
    {
        let secretHeaders = request.secretHeaderFields
        var headers: [String: String] = [:]
        var removedHeaders: [String] = []
        var idempotencyKey: String?
        for (name, value) in built.allHTTPHeaderFields ?? [:] {
            if name.lowercased() == "idempotency-key" {
                idempotencyKey = value
            } else if Redaction.isSecretHeader(name, secretHeaderFields: secretHeaders) {
                removedHeaders.append(name)
            } else {
                headers[name] = value
            }
        }
        let (storedURL, removedItems) = removingSecrets(from: url, secretQueryItems: request.secretQueryItems)
        return QueuedOperation(
            id: UUID(), sequence: 0, typeName: request.typeName, method: built.httpMethod ?? "GET", url: storedURL,
            headerFields: headers, removedSecretHeaderNames: removedHeaders.sorted(),
            removedSecretQueryItemNames: removedItems, idempotencyKey: idempotencyKey ?? UUID().uuidString,
            enqueuedAt: Date(), attempts: 0, bodyLength: built.httpBody?.count ?? 0)
    }

    /// Keeps `body` in the operation (up to ``Configuration/inlineBodyLimit``) or in a body file; refuses a
    /// body larger than ``Configuration/maximumPendingBytes`` on its own.
    private func storeBody(_ body: Data, of operation: inout QueuedOperation, for request: AnyConnectionRequest) throws
    {
        if body.count > configuration.maximumPendingBytes {
            throw request.contextualize(
                ConnectionError(
                    .fileSystem(underlying: OfflineQueueError(.full(pendingOperations: 0, pendingBytes: 0)))))
        }
        guard !body.isEmpty else { return }
        if body.count <= configuration.inlineBodyLimit {
            operation.inlineBody = body
            return
        }
        do {
            operation.bodyFileName = try store.writeBody(body, id: operation.id)
        } catch {
            throw request.contextualize(error)
        }
    }

    /// Writes `operation` to the journal, within the limits, and returns it with its sequence number; on
    /// failure removes its body file. `request` is its class's template while it is being enqueued, and after
    /// while an operation of its class is pending (``OfflineQueueState/beginEnqueue(of:)``).
    private func commit(
        _ operation: QueuedOperation, bodyLength: Int, for request: AnyConnectionRequest
    ) throws -> QueuedOperation {
        let typeName = request.typeName
        let limits = (operations: configuration.maximumPendingOperations, bytes: configuration.maximumPendingBytes)
        // Registered before the commit: the worker may attempt the operation the moment it is committed.
        state.withLock { $0.beginEnqueue(of: request) }
        defer { state.withLock { $0.endEnqueue(of: typeName) } }
        do {
            let json = try OfflineStore.encode(operation)
            return try journal.commit(
                OfflineJournal.Staged(operation: operation, json: json), hasBodyFile: operation.bodyFileName != nil,
                admit: { count, bytes in
                    guard count < limits.operations, bytes + bodyLength <= limits.bytes else {
                        throw ConnectionError(
                            .fileSystem(
                                underlying: OfflineQueueError(.full(pendingOperations: count, pendingBytes: bytes))))
                    }
                },
                committed: { operations in
                    // In sequence order, batch after batch: the order of `pending` is the order of delivery.
                    self.state.withLock { $0.pending.append(contentsOf: operations) }
                })
        } catch {
            store.removeBody(named: operation.bodyFileName)
            throw request.contextualize(error)
        }
    }

    // MARK: - Classifying failures

    /// Transport errors that mean the request never reached the server.
    static let unreachableCodes: Set<URLError.Code> = [
        .notConnectedToInternet, .cannotFindHost, .dnsLookupFailed, .cannotConnectToHost, .networkConnectionLost,
        .timedOut, .internationalRoamingOff, .dataNotAllowed,
    ]

    /// Whether `error` means the network (not the server) failed: the errors that queue a request.
    static func isUnreachable(_ error: ConnectionError, responseArrived: Bool) -> Bool {
        if let urlError = error.urlError {
            return unreachableCodes.contains(urlError.code) && !(urlError.code == .timedOut && responseArrived)
        }
        return error.kind == .timedOut && !responseArrived
    }

    /// `url` without a password and without the values of `secretQueryItems`; returns the names removed.
    static func removingSecrets(from url: URL, secretQueryItems: Set<String>) -> (URL, [String]) {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return (url, []) }
        components.password = nil
        var removed: [String] = []
        if let items = components.queryItems, !secretQueryItems.isEmpty {
            let secret = Set(secretQueryItems.map { $0.lowercased() })
            let kept = items.filter { item in
                guard secret.contains(item.name.lowercased()) else { return true }
                removed.append(item.name)
                return false
            }
            components.queryItems = kept.isEmpty ? nil : kept
        }
        return (components.url ?? url, removed)
    }
}
