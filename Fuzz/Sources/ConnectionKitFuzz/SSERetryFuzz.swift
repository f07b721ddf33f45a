import Foundation

@testable import ConnectionKit

/// An event stream's `retry` fields, as a hostile server sends them: whatever the stream says, and
/// however long the connections lasted, the wait before the next connection is finite, at least the
/// floor, and at most the policy's longest wait (issue 30: `retry: 0` stormed, `retry` of days parked).
enum SSERetryFuzz {
    static let policy = RetryPolicy(jitter: 0)
    static let floor = 0.5

    static func run(_ input: Data) {
        // The first byte picks how the stream is cut into chunks and how long each connection lasted.
        let shape = input.first ?? 0
        let stream = input.dropFirst()
        var decoder = SSEDecoder(maximumEventSize: 4096)
        var backoff = ReconnectionBackoff(minimum: floor)
        let step = Int(shape % 16) + 1
        var offset = stream.startIndex
        while offset < stream.endIndex {
            let end = stream.index(offset, offsetBy: step, limitedBy: stream.endIndex) ?? stream.endIndex
            guard (try? decoder.decode(Data(stream[offset..<end]))) != nil else { return }
            offset = end
            let connected: TimeInterval? = shape & 0x80 == 0 ? Double(shape % 20) : nil
            let wait = backoff.wait(
                policyWait: 0.5, serverRetry: decoder.reconnectionTime, connected: connected, policy: policy)
            let longest = max(policy.maximumRetryAfter, policy.maximumBackoff)
            guard wait.isFinite, wait >= floor, wait <= longest else {
                fatalError("retry \(String(describing: decoder.reconnectionTime)) gave a wait of \(wait) s")
            }
        }
    }
}
