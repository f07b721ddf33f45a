import Foundation

/// Renews an expired credential once for every request that was refused with it: share one instance between all
/// the requests of an app superclass (a `static let`) and return it from
/// ``AnyConnectionRequest/authorizationRefresher``.
///
/// When a request gets a `401` and its class has a refresher, the request waits for a refresh and then sends
/// again, once, reading ``AnyConnectionRequest/authorization`` anew. The refresh is **single-flight**: while one
/// runs, every other `401` joins it; a `401` to a request sent before the last refresh finished does not start
/// another one but retries with the renewed credential (or fails with that refresh's error). So fifty requests
/// refused at once cause exactly one call to `refresh`.
///
/// If `refresh` throws, every request waiting for it fails with one
/// ``AuthorizationRefreshError`` (wrapped in a `ConnectionError` of kind `other`). A request refused again after
/// its retry fails with the `401` as usual. `refresh` has no time limit of its own: give the call it makes a
/// timeout (a ConnectionKit request has one by default). The call that renews must not itself use this refresher
/// (its class returns `nil` from `authorizationRefresher`): a `401` to it would wait for its own renewal.
///
/// ```swift
/// static let refresher = AuthorizationRefresher {
///     let token = try await RenewToken().value()
///     try credentials.setCredential(token.accessToken, for: "api")
/// }
/// ```
/// - SeeAlso: <doc:client-and-authorization>
public final class AuthorizationRefresher: Sendable {
    private struct State {
        /// Bumped when a refresh ends (success or failure).
        var generation: UInt64 = 0
        /// The waiters of the refresh in flight; `nil` when none runs.
        var waiters: [@Sendable (Result<Void, any Error>) -> Void]?
        /// The error of the last refresh, `nil` when it succeeded.
        var lastFailure: (any Error)?
        var refreshCount = 0
    }

    private let performRefresh: @Sendable () async throws -> Void
    private let state = Locked(State())

    /// Creates a refresher that calls `refresh` to renew the credential (typically: ask the API for a new token
    /// and store it where ``AnyConnectionRequest/authorization`` reads it).
    public init(refresh: @escaping @Sendable () async throws -> Void) {
        self.performRefresh = refresh
    }

    /// How many refreshes have started so far.
    public var refreshCount: Int { state.withLock { $0.refreshCount } }

    /// Identifies the credential in use: it changes whenever a refresh ends. Requests record it when they apply
    /// their authorization.
    var generation: UInt64 { state.withLock { $0.generation } }

    /// Renews the credential now, or joins the refresh in progress. Throws what `refresh` threw.
    public func refresh() async throws {
        let seen = generation
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            refresh(after: seen) { continuation.resume(with: $0) }
        }
    }

    /// Calls `completion` once the credential is newer than `seen`: at once when a refresh already ended since
    /// (with its outcome), when the refresh in progress ends, or after a new one.
    func refresh(after seen: UInt64, completion: @escaping @Sendable (Result<Void, any Error>) -> Void) {
        enum Action {
            case done(Result<Void, any Error>)
            case joined
            case start
        }
        let action: Action = state.withLock { state in
            if state.generation != seen {
                return .done(state.lastFailure.map { .failure($0) } ?? .success(()))
            }
            if state.waiters != nil {
                state.waiters?.append(completion)
                return .joined
            }
            state.waiters = [completion]
            state.refreshCount += 1
            return .start
        }
        switch action {
        case .done(let result):
            completion(result)
        case .joined:
            break
        case .start:
            let performRefresh = self.performRefresh
            Task {
                let result: Result<Void, any Error>
                do {
                    try await performRefresh()
                    result = .success(())
                } catch {
                    result = .failure(error)
                }
                let waiters = self.state.withLock { state in
                    defer { state.waiters = nil }
                    state.generation &+= 1
                    if case .failure(let error) = result { state.lastFailure = error } else { state.lastFailure = nil }
                    return state.waiters ?? []
                }
                for waiter in waiters { waiter(result) }
            }
        }
    }
}
