import Foundation

/// Entries in memory, bounded by their cost, least recently used evicted first.
final class MemoryHTTPCacheStore: HTTPCacheStore {
    private struct Item {
        var entry: HTTPCacheEntry
        var lastUse: UInt64
    }

    private struct State {
        var items: [String: Item] = [:]
        var totalBytes = 0
        var clock: UInt64 = 0
    }

    private let maximumBytes: Int
    private let state = Locked(State())

    init(maximumBytes: Int) {
        self.maximumBytes = max(0, maximumBytes)
    }

    func entry(forKey key: String) -> HTTPCacheEntry? {
        state.withLock { state in
            guard var item = state.items[key] else { return nil }
            state.clock += 1
            item.lastUse = state.clock
            state.items[key] = item
            return item.entry
        }
    }

    func store(_ entry: HTTPCacheEntry, forKey key: String) {
        guard entry.cost <= maximumBytes else { return }
        state.withLock { state in
            state.clock += 1
            if let old = state.items.updateValue(Item(entry: entry, lastUse: state.clock), forKey: key) {
                state.totalBytes -= old.entry.cost
            }
            state.totalBytes += entry.cost
            while state.totalBytes > maximumBytes,
                let oldest = state.items.min(by: { $0.value.lastUse < $1.value.lastUse })
            {
                state.items[oldest.key] = nil
                state.totalBytes -= oldest.value.entry.cost
            }
        }
    }

    func removeEntries(forURLKey urlKey: String) {
        state.withLock { state in
            for (key, item) in state.items where key.hasPrefix(urlKey + "-") {
                state.items[key] = nil
                state.totalBytes -= item.entry.cost
            }
        }
    }

    func removeAll() {
        state.withLock { $0 = State() }
    }

    var totalBytes: Int {
        state.withLock { $0.totalBytes }
    }
}
