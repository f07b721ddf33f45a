import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The authorization stage: sets the class's ``AnyConnectionRequest/authorization`` as the `Authorization`
/// header of each attempt (unless the request set one itself) and, after a `401`, waits once per run for the
/// class's ``AuthorizationRefresher`` before the next attempt.
final class AuthorizationStage: PipelineStage, @unchecked Sendable {
    // Safe: `refresher` is immutable; `generation` is locked.
    /// The stage of a class without a refresher: it keeps nothing per run, so every such run shares it.
    static let withoutRefresher = AuthorizationStage(refresher: nil)

    private let refresher: AuthorizationRefresher?
    /// The refresher's generation when the current attempt's authorization was applied.
    private let generation = Locked<UInt64?>(nil)

    init(refresher: AuthorizationRefresher?) {
        self.refresher = refresher
    }

    /// Sets `owner`'s ``AnyConnectionRequest/authorization`` as the `Authorization` header of `request`,
    /// unless the request has one; refuses a value that cannot be sent.
    static func authorize(_ request: inout URLRequest, owner: AnyConnectionRequest) throws {
        guard request.value(forHTTPHeaderField: "Authorization") == nil, let authorization = owner.authorization
        else { return }
        let value = authorization.headerValue
        try WireValidation.check(method: nil, headerFields: [("Authorization", value)], hook: "authorization")
        request.setValue(value, forHTTPHeaderField: "Authorization")
    }

    func prepareAttempt(_ request: inout URLRequest, owner: AnyConnectionRequest) throws -> StageAnswer? {
        // Read before `authorization`: a refresh ending in between then only causes a needless retry.
        let current = refresher?.generation
        try Self.authorize(&request, owner: owner)
        if refresher != nil { generation.withLock { $0 = current } }
        return nil
    }

    /// After a `401`, when this run has not waited for a refresh yet: waits for the (single-flight) refresh,
    /// then starts the next attempt, which applies ``AnyConnectionRequest/authorization`` anew; a failed
    /// refresh ends the run with ``AuthorizationRefreshError``.
    func takeOver(after error: ConnectionError, run: RunNumber, attempt: Int, owner: AnyConnectionRequest) -> Bool {
        guard error.statusCode == 401, let refresher else { return false }
        let waits = owner.storage.withLock { state in
            if case .waitForStage = state.lifecycle.handle(.stageWaitStarted(run)) { return true }
            return false
        }
        guard waits else { return false }
        let sentWith = generation.withLock { $0 }
        owner.runClient.notify(.retried(attempt: attempt + 1, after: 0, error: error), for: owner)
        refresher.refresh(after: sentWith ?? refresher.generation) { [weak owner] result in
            // Off the refresher's task (the next attempt may assemble a large multipart body) and off the
            // caller's stack (the outcome may be known at once).
            guard let owner else { return }
            owner.process(run: run, on: owner.runClient.processingQueue) {
                switch result {
                case .success:
                    owner.resumeAttempts(after: .stageWaitEnded(run))
                case .failure(let failure):
                    let error = ConnectionError(
                        .other(underlying: AuthorizationRefreshError(underlyingError: failure)))
                    owner.finish(run: run, outcome: .failure(error))
                }
            }
        }
        return true
    }
}
