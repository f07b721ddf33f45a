import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension ConnectionRegistry {
    // MARK: - Settings

    /// How many ended runs ``history(of:outcome:since:until:)`` keeps, newest replacing oldest.
    /// Default 1,000; 0 turns the history off (and frees it). Lowering it drops the oldest runs.
    ///
    /// Each record is capped (header fields at 8 KiB per direction, the URL at 2 KiB, the error
    /// message at 1 KiB, the body preview at ``ConnectionDebug/bodyPreviewLimit``, the last 16
    /// attempts' metrics), so a record takes at most about 24 KiB and a typical one about 1.5 KiB:
    /// see docs/inspector.md for the measured memory of a full history.
    public var historyCapacity: Int {
        get { recorder.capacity }
        set { recorder.capacity = newValue }
    }

    /// Whether ``statistics()`` counts endings. Default `true`. Turning it off keeps the counts so far.
    public var isRecordingStatistics: Bool {
        get { recorder.statisticsEnabled }
        set { recorder.statisticsEnabled = newValue }
    }

    /// The `le` bounds, in seconds, of ``ConnectionStatistics/latencyBuckets``.
    public static var latencyBucketBounds: [TimeInterval] { LatencyHistogram.prometheusBounds }

    // MARK: - History

    /// The kept runs of class `type` or a subclass (default: every class), oldest first, optionally
    /// only those with `outcome` and those that ended between `since` and `until` (inclusive).
    /// Secrets are redacted. Empty when ``historyCapacity`` is 0.
    public func history(
        of type: AnyConnectionRequest.Type = AnyConnectionRequest.self,
        outcome: ConnectionHistoryRecord.Outcome? = nil,
        since: Date? = nil,
        until: Date? = nil
    ) -> [ConnectionHistoryRecord] {
        recorder.entries.lazy
            .filter { entry in
                if let outcome, entry.summary.outcome != outcome { return false }
                if let since, entry.summary.dateFinished < since { return false }
                if let until, entry.summary.dateFinished > until { return false }
                return type == AnyConnectionRequest.self || Self.isClass(entry.type, kindOf: type)
            }
            .map(\.record)
    }

    /// Forgets the kept runs; statistics stay.
    public func clearHistory() {
        recorder.clearHistory()
    }

    // MARK: - Statistics

    /// Every class's statistics since the process started or the last ``resetStatistics()``,
    /// sorted by class name. Each class counts its own runs (a subclass has its own entry).
    public func statistics() -> [ConnectionStatistics] {
        recorder.statistics
    }

    /// The statistics of exactly class `type`; `nil` before one of its runs ended.
    public func statistics(of type: AnyConnectionRequest.Type) -> ConnectionStatistics? {
        recorder.statistics(of: type)
    }

    /// Starts every class's statistics afresh.
    public func resetStatistics() {
        recorder.resetStatistics()
    }

    // MARK: - Recording

    /// Called by `ConnectionHistoryObserver` once a run has ended, with no lock held.
    func recordEnding(_ outcome: RunOutcome, for request: AnyConnectionRequest) {
        let needs = recorder.needs
        guard needs.history || needs.statistics else { return }
        let (summary, details) = HistoryRecordBuilder.summary(of: request, outcome: outcome, withDetails: needs.history)
        let cacheAsked = request.storage.withLock { $0.pipeline.stage(CacheStage.self) }?.answers ?? false
        recorder.record(summary, details: details, type: type(of: request), keep: needs.history, cacheAsked: cacheAsked)
    }

    /// Records a made-up ending of class `type`, as if a run had ended: for tests of the bounds.
    func recordSyntheticEnding(_ record: ConnectionHistoryRecord, type: AnyConnectionRequest.Type) {
        let needs = recorder.needs
        recorder.record(record, type: type, keep: needs.history)
    }

    /// Whether class `candidate` is `type` or one of its subclasses.
    static func isClass(_ candidate: AnyConnectionRequest.Type, kindOf type: AnyConnectionRequest.Type) -> Bool {
        var current: AnyClass? = candidate
        while let checked = current {
            if checked == type { return true }
            current = _getSuperclass(checked)
        }
        return false
    }
}
