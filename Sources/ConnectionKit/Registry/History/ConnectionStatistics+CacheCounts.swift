import Foundation

extension ConnectionStatistics {
    /// How a class's HTTP cache answered its runs, counted by the final response's ``ResponseSource``.
    public struct CacheCounts: Sendable, Hashable, Codable {
        /// Runs answered by a fresh stored response, without the network (``ResponseSource/cache``).
        public var hits = 0
        /// Runs answered by a stored response the server confirmed with a `304` (``ResponseSource/revalidated``).
        public var revalidated = 0
        /// Runs answered by a stale stored response (``ResponseSource/staleCache``).
        public var stale = 0
        /// Runs the cache was asked about and that the network answered (nothing usable was stored).
        public var misses = 0

        /// No run counted yet.
        public init() {}

        /// Counts one run whose final response came from `source`.
        mutating func add(_ source: ResponseSource?, cacheAsked: Bool) {
            switch source {
            case .cache?: hits += 1
            case .revalidated?: revalidated += 1
            case .staleCache?: stale += 1
            case .network?: if cacheAsked { misses += 1 }
            // The cache never saw a run a middleware answered.
            case .middleware?, nil: break
            }
        }
    }
}
