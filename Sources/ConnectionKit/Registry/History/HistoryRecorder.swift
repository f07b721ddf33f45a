import Foundation

/// The registry's history and per-class statistics, behind a lock of their own so that recording
/// an ending never waits on the registry's lock (taken by every start and end) nor holds a request's.
final class HistoryRecorder: Sendable {
    /// The default of ``ConnectionRegistry/historyCapacity``: 1,000 runs.
    static let defaultCapacity = 1000

    /// A kept run and its class, for queries that include subclasses.
    /// A class, so that the ring moves a reference rather than copying a record at every ending.
    final class Entry: @unchecked Sendable {
        // Safe: immutable; a metatype is an immutable reference to class metadata.
        let type: AnyConnectionRequest.Type
        /// The record without its header fields and body preview: enough to filter on.
        let summary: ConnectionHistoryRecord
        let details: HistoryRecordBuilder.Details?

        init(type: AnyConnectionRequest.Type, summary: ConnectionHistoryRecord, details: HistoryRecordBuilder.Details?)
        {
            (self.type, self.summary, self.details) = (type, summary, details)
        }

        /// The whole record, secrets redacted.
        var record: ConnectionHistoryRecord { details?.applied(to: summary) ?? summary }
    }

    /// One class's running totals.
    struct Tally: Sendable {
        let typeName: String
        let since: Date
        var requests = 0
        var successes = 0
        var failures = 0
        var cancellations = 0
        var failuresByKind: [String: Int] = [:]
        var retries = 0
        var cache = ConnectionStatistics.CacheCounts()
        var bytesSent: Int64 = 0
        var bytesReceived: Int64 = 0
        var latency = LatencyHistogram()

        mutating func add(_ record: ConnectionHistoryRecord, cacheAsked: Bool) {
            requests += 1
            cache.add(record.responseSource, cacheAsked: cacheAsked)
            switch record.outcome {
            case .finished: successes += 1
            case .cancelled: cancellations += 1
            case .failed:
                failures += 1
                failuresByKind[record.errorKind ?? "other", default: 0] += 1
            }
            retries += record.retries
            bytesSent += record.requestBodySize
            bytesReceived += record.responseBodySize
            latency.record(record.duration)
        }

        var statistics: ConnectionStatistics {
            ConnectionStatistics(
                typeName: typeName, since: since, requests: requests, successes: successes, failures: failures,
                cancellations: cancellations, failuresByKind: failuresByKind, retries: retries, cache: cache,
                bytesSent: bytesSent, bytesReceived: bytesReceived,
                latency: .init(
                    p50: latency.percentile(0.5), p90: latency.percentile(0.9), p99: latency.percentile(0.99),
                    max: latency.maximum, sum: latency.sum),
                latencyBuckets: zip(LatencyHistogram.prometheusBounds, latency.boundCounts).map {
                    ConnectionStatistics.Bucket(upperBound: $0.0, count: $0.1)
                })
        }
    }

    private struct State {
        var capacity = HistoryRecorder.defaultCapacity
        /// A ring: `ring[(head + i) % ring.count]` is the i-th oldest once full.
        var ring: [Entry] = []
        var head = 0
        var statisticsEnabled = true
        var tallies: [ObjectIdentifier: Tally] = [:]

        mutating func append(_ entry: Entry) {
            guard capacity > 0 else { return }
            if ring.count < capacity {
                ring.append(entry)
            } else {
                ring[head] = entry
                head = (head + 1) % ring.count
            }
        }

        var inOrder: [Entry] {
            Array(ring[head...] + ring[..<head])
        }
    }

    private let state = Locked(State())

    /// What an ending must gather: nothing, statistics only, or a whole record.
    var needs: (history: Bool, statistics: Bool) {
        state.withLock { ($0.capacity > 0, $0.statisticsEnabled) }
    }

    var capacity: Int {
        get { state.withLock { $0.capacity } }
        set {
            let capacity = max(0, newValue)
            state.withLock { state in
                let kept = state.inOrder.suffix(capacity)
                state.capacity = capacity
                state.ring = Array(kept)
                state.head = 0
            }
        }
    }

    var statisticsEnabled: Bool {
        get { state.withLock { $0.statisticsEnabled } }
        set { state.withLock { $0.statisticsEnabled = newValue } }
    }

    /// Counts and keeps one ending. O(1): one bucket, a few counters, one ring slot. `cacheAsked`: the
    /// class's HTTP cache was asked about the run's last attempt (a response from the network is a miss).
    func record(
        _ record: ConnectionHistoryRecord, details: HistoryRecordBuilder.Details? = nil,
        type: AnyConnectionRequest.Type,
        keep: Bool, cacheAsked: Bool = false
    ) {
        let key = ObjectIdentifier(type)
        state.withLock { state in
            if state.statisticsEnabled {
                // Mutated in place in the dictionary: copying the tally out would copy its histogram.
                state.tallies[key, default: Tally(typeName: record.typeName, since: record.dateFinished)].add(
                    record, cacheAsked: cacheAsked)
            }
            if keep { state.append(Entry(type: type, summary: record, details: details)) }
        }
    }

    /// The kept runs, oldest first.
    var entries: [Entry] { state.withLock { $0.inOrder } }

    var statistics: [ConnectionStatistics] {
        state.withLock { state in state.tallies.values.map(\.statistics) }.sorted { $0.typeName < $1.typeName }
    }

    func statistics(of type: AnyConnectionRequest.Type) -> ConnectionStatistics? {
        state.withLock { $0.tallies[ObjectIdentifier(type)]?.statistics }
    }

    func resetStatistics() {
        state.withLock { $0.tallies = [:] }
    }

    func clearHistory() {
        state.withLock { state in
            state.ring = []
            state.head = 0
        }
    }

    /// How many classes have statistics (one tally each, however many runs).
    var tallyCount: Int { state.withLock { $0.tallies.count } }
}
