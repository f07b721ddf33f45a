import Foundation

/// Drops the body: a redirect's, which nobody reads.
final class DiscardSink: BodySink {
    func append(_ data: Data) throws -> TransferDemand { .more }
    func finish() throws -> CompletedBody { .memory(Data()) }
    func discard() {}
}
