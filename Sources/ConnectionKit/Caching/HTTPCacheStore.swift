import Foundation

/// Where an ``HTTPCache`` keeps its entries: in memory or in a folder. Keys come from
/// ``HTTPCacheRules/key(storedURL:partition:)``; a store bounds its size by evicting the least recently used.
protocol HTTPCacheStore: Sendable {
    /// The entry stored under `key`, or `nil` (a damaged one is dropped, never returned).
    func entry(forKey key: String) -> HTTPCacheEntry?
    /// Stores `entry` under `key`, replacing what was there. An entry larger than the bound is not stored.
    func store(_ entry: HTTPCacheEntry, forKey key: String)
    /// Removes the entries of every partition of one URL (``HTTPCacheRules/urlKey(_:)``).
    func removeEntries(forURLKey urlKey: String)
    /// Removes everything.
    func removeAll()
    /// The bytes the entries cost now (``HTTPCacheEntry/cost`` in memory, file sizes on disk).
    var totalBytes: Int { get }
}
