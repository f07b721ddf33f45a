/// How far a transfer has come, in bytes.
///
/// ConnectionKit's own value type: Foundation's `Progress` traps on Linux when its total
/// changes after progress was recorded, so it is never used on the transfer path.
///
/// Progress is delivered to `progressHandler` at most every ``AnyConnectionRequest/progressInterval``
/// (default 0.1 s) per direction, and always once more when a direction completes. Within one
/// attempt `completedBytes` never goes backwards; a retry starts a new attempt at zero.
public struct TransferProgress: Sendable, Hashable, CustomStringConvertible {
    /// Which way the bytes are going.
    public enum Direction: String, Sendable, Hashable, Codable {
        /// The request body, client to server.
        case upload
        /// The response body, server to client.
        case download
    }

    /// Upload (request body) or download (response body).
    public var direction: Direction
    /// Bytes transferred so far in this attempt.
    public var completedBytes: Int64
    /// The total, when the other side declared it (`Content-Length`); `nil` for chunked
    /// or compressed bodies of unknown length.
    public var expectedBytes: Int64?

    /// Creates a progress value. A negative `expectedBytes` means unknown and is stored as `nil`.
    public init(direction: Direction, completedBytes: Int64, expectedBytes: Int64?) {
        self.direction = direction
        self.completedBytes = max(0, completedBytes)
        if let expectedBytes, expectedBytes >= 0 {
            self.expectedBytes = expectedBytes
        } else {
            self.expectedBytes = nil
        }
    }

    /// `completedBytes / expectedBytes`, clamped to `0...1`; `nil` when the total is unknown.
    /// An empty body of known length is complete (`1.0`).
    public var fractionCompleted: Double? {
        guard let expectedBytes else { return nil }
        guard expectedBytes > 0 else { return 1 }
        return min(1, max(0, Double(completedBytes) / Double(expectedBytes)))
    }

    /// For example `download 512/1024 (50%)` or `download 512/?`.
    public var description: String {
        let total = expectedBytes.map(String.init) ?? "?"
        if let fraction = fractionCompleted {
            return "\(direction.rawValue) \(completedBytes)/\(total) (\(Int(fraction * 100))%)"
        }
        return "\(direction.rawValue) \(completedBytes)/\(total)"
    }
}
