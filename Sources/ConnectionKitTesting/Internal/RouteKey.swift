/// Where a handler is registered: an upper-cased method (`nil` for any method) and an exact path.
struct RouteKey: Hashable, Sendable {
    /// The upper-cased method, or `nil` to match every method.
    var method: String?
    /// The percent-encoded path, without query, compared exactly.
    var path: String
}
