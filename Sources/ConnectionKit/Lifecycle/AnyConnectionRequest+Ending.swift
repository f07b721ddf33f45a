import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension AnyConnectionRequest {
    // MARK: - Ending

    /// Ends `run` with `outcome`, once: the first caller wins, later ones do nothing.
    /// `commit` runs after the ending is claimed and before it is visible (e.g. renaming a saved file
    /// into place); if it throws, the run fails with that error instead.
    /// Returns whether this call ended the run.
    @discardableResult
    func finish(run: RunNumber, outcome: RunOutcome, commit: (() throws -> Void)? = nil) -> Bool {
        var outcome = outcome
        if case .failure(let error) = outcome {
            outcome = .failure(contextualize(error))
        }
        let (action, client) = storage.withLock { state in
            let action = state.lifecycle.handle(.end(run, outcome, commits: commit != nil))
            if case .endRun(let closing) = action, !closing.commits { state.noteEnding() }
            return (action, state.client)
        }
        guard case .endRun(let closing) = action else { return false }
        closeRun(closing, commit: commit, client: client)
        return true
    }

    /// Releases what the ended run held, runs its commit, then reports and delivers the ending.
    /// `client` is the run's, read when the ending was claimed (a new run may have started since).
    func closeRun(_ closing: RequestLifecycle.Closing, commit: (() throws -> Void)?, client: ConnectionClient) {
        runWillEnd(closing.run, outcome: closing.outcome)
        // Stops the transfer's events at once; its body is dropped below, off the caller's thread.
        closing.transfer?.handle.cancel()
        closing.timers.forEach { $0.cancel() }
        discardAssembledBody(of: closing.run)
        var outcome = closing.outcome
        if closing.commits {
            var failure: ConnectionError?
            do {
                try commit?()
            } catch {
                failure = contextualize(error, as: { .fileSystem(underlying: $0) })
            }
            let committed = storage.withLock { state in
                let action = state.lifecycle.handle(.commitEnded(closing.run, failure: failure))
                state.noteEnding()
                return action
            }
            if case .deliver(let final) = committed { outcome = final }
        }
        client.registry.unregister(self, run: closing.run)
        client.notify(.ended(outcome), for: self)
        let (waiters, queue, ordered, target): ([Waiter], DispatchQueue, Bool, RunDelivery?) = storage.withLock {
            state in
            let (mine, others) = state.waiters.partitioned { $0.run == closing.run }
            state.waiters = others
            return (mine, state.callbackQueue, state.progressHandler != nil, state.delivery(of: closing.run))
        }
        let (ended, run) = (outcome, closing.run)
        // A transfer that completed handed its body over: nothing is left to drop (the common path of every
        // success). Dropping a body saved to file (waiting out a write, closing, unlinking hundreds of MB) can
        // take long under disk load (docs/benchmarks.md, FileBench): `cancel()` must return at once, and the
        // handler must still run only once the temporary file is gone.
        let leftBody = (closing.transfer?.context).flatMap { $0.abandonIfEmpty() ? nil : $0 }
        let deliver: @Sendable () -> Void = { self.deliver(ended, of: run, waiters: waiters, client: client) }
        // Counted as ended only once the ending is queued: a shutdown that returns has every ending on its
        // way, so a `sync {}` on the callback queue sees each handler run.
        switch target {
        case .awaitingTask(let inbox)?:
            // The inbox takes it: it closes only once this ending has resolved the run's result.
            let work: @Sendable () -> Void = {
                leftBody?.abandon()
                deliver()
            }
            if !inbox.post(work) { queue.async(execute: work) }
        case .ownQueue(let own)?:
            own.async {
                leftBody?.abandon()
                deliver()
            }
        case nil:
            deliverToCallbackQueue(
                deliver, queue: queue, leftBody: leftBody,
                inPlace: client.delivery == .immediate && !ordered && !isStreaming && ConnectionQueues.isProcessing,
                client: client)
            return
        }
        client.runEnded()
    }

    /// Delivers the ending of a run started with `start()` on `queue`, or in place under immediate delivery
    /// where the ending is already processing work (a processing queue) and no earlier event of the run
    /// (progress, streamed elements) waits on the callback queue. A body to drop is dropped on the
    /// processing queue first, off the caller's thread.
    private func deliverToCallbackQueue(
        _ deliver: @escaping @Sendable () -> Void, queue: DispatchQueue, leftBody: TransferContext?, inPlace: Bool,
        client: ConnectionClient
    ) {
        if let leftBody {
            client.processingQueue.async {
                leftBody.abandon()
                queue.async(execute: deliver)
                client.runEnded()
            }
        } else if inPlace {
            // Counted first, so that a handler that shuts the client down does not wait for itself.
            client.runEnded()
            deliver()
        } else {
            queue.async(execute: deliver)
            client.runEnded()
        }
    }

    /// Runs on the callback queue, or in place under immediate delivery: the user-visible ending.
    private func deliver(_ outcome: RunOutcome, of run: RunNumber, waiters: [Waiter], client: ConnectionClient) {
        let thread = currentThreadKey()
        storage.withLock { $0.deliveringWaiters.append((thread, waiters)) }
        let takenOver = client.takeOver(outcome, for: self)
        defer { storage.withLock { _ = $0.lifecycle.handle(.delivered(run)) } }
        let fallback: Result<any Sendable, any Error>
        switch outcome {
        case .success(let output):
            deliverOutput(output)
            fallback = .success(output)
        case .failure(let error):
            if takenOver {
                // Queued for later delivery: the offline handler ran instead of the failure path.
                resolveWaiters(with: .failure(parseError(error)))
                return
            }
            let mapped = parseError(error)
            handleConnectionError(mapped)
            fallback = .failure(mapped)
        case .cancelled:
            let mapped = parseError(contextualize(ConnectionError(.cancelled)))
            handleConnectionError(mapped)
            fallback = .failure(mapped)
        }
        // An override that delivered nothing still ends `value()`.
        resolveWaiters(with: fallback)
    }

    /// Delivers `error`, the failure of a run whose ending an observer took over, to the failure path after
    /// all: the offline queue could not store the write (``OfflineQueue/start(_:onOffline:)``). Runs on the
    /// callback queue; its `value()` callers already got the error.
    func deliverFailureAfterTakeOver(_ error: ConnectionError) {
        handleConnectionError(parseError(error))
    }

    /// Ends every `value()` caller of the ending being delivered. Later calls do nothing.
    func resolveWaiters(with result: Result<any Sendable, any Error>) {
        let thread = currentThreadKey()
        let waiters = storage.withLock { state -> [Waiter] in
            guard let index = state.deliveringWaiters.firstIndex(where: { $0.thread == thread }) else { return [] }
            return state.deliveringWaiters.remove(at: index).waiters
        }
        waiters.forEach { $0.resume(result) }
    }
}

/// The calling thread, as a key: the thread that delivers an ending is the one its result hook resolves
/// the waiters on.
private func currentThreadKey() -> UInt {
    #if canImport(Darwin)
        UInt(bitPattern: pthread_self())
    #else
        UInt(pthread_self())
    #endif
}
