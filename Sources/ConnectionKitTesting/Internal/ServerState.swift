import HTTPServerCore

/// Everything mutable about a ``TestServer``, kept behind its one lock.
struct ServerState: Sendable {
    /// Registered handlers.
    var routes: [RouteKey: @Sendable (TestRequest) -> TestResponse] = [:]
    /// Every parsed request, by path, in arrival order; `hits` is the count.
    var requestsByPath: [String: [TestRequest]] = [:]
    /// Paths whose request bodies are digested rather than stored.
    var digestedPaths: Set<String> = []
    /// Callers of `waitForHits`, resumed when their path has enough hits or their time is up.
    var hitWaiters: [UInt64: HitWaiter] = [:]
    var nextWaiterID: UInt64 = 0
}

/// A caller waiting for `count` hits on `path`.
struct HitWaiter: Sendable {
    let path: String
    let count: Int
    let resume: @Sendable (Bool) -> Void
}
