import ConnectionKit
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A JSON request to a fixed URL, for payload and limit tests.
final class JSONFetch<Output: Decodable & Sendable>: JSONConnectionRequest<Output>, @unchecked Sendable {
    // Safe: immutable after init.
    let target: URL
    let policy: RetryPolicy
    let bodyLimit: Int64

    init(_ target: URL, policy: RetryPolicy = .none, bodyLimit: Int64 = 128 * 1024 * 1024) {
        self.target = target
        self.policy = policy
        self.bodyLimit = bodyLimit
        super.init()
    }

    override var url: URL? { target }
    override var retryPolicy: RetryPolicy { policy }
    override var maximumResponseBodySize: Int64 { bodyLimit }
}

/// Gzip fixtures, made with Python's `gzip.compress(..., mtime=0)` (no zlib module in Swift on Linux).
enum GzipFixture {
    /// `{"name":"gzip","values":[1,2,3]}`.
    static let json = Data(
        hex: "1f8b0800000000000203ab56ca4bcc4d55b2524aafca2c50d2512a4bcc294d2d56b28a36d431d2318ead05000b0a93ba20000000")
    /// 100,000 zero bytes in 132 compressed bytes: a small "zip bomb".
    static let zeros = Data(
        hex: "1f8b0800000000000203edc13101000000c2a0f54f6d0d0fa0" + String(repeating: "00", count: 96)
            + "8057037d9511d4a0860100")
}

extension Data {
    /// Bytes from a string of hex digit pairs.
    init(hex: String) {
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex, let next = hex.index(index, offsetBy: 2, limitedBy: hex.endIndex) {
            bytes.append(UInt8(hex[index..<next], radix: 16) ?? 0)
            index = next
        }
        self.init(bytes)
    }
}

/// What a gzip fixture decodes to.
struct GzipPayload: Codable, Equatable, Sendable {
    let name: String
    let values: [Int]
}
