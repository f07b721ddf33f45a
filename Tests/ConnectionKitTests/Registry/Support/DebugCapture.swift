import ConnectionKit
import Foundation

/// Replaces ConnectionKit's debug sink, once per process, with one that keeps every block, so
/// that parallel tests can each look for their own requests' blocks.
enum DebugCapture {
    private static let blocks = NSLockedBlocks()

    /// Installs the capturing sink (idempotent).
    static func install() {
        _ = installed
    }

    private static let installed: Bool = {
        ConnectionDebug.sink = { text in blocks.append(text) }
        return true
    }()

    /// Every block captured so far.
    static var all: [String] { blocks.all }

    /// The blocks that mention `identifier`.
    static func blocks(for identifier: UUID) -> [String] {
        all.filter { $0.contains(identifier.uuidString) }
    }
}

/// The captured text, behind a lock.
final class NSLockedBlocks: @unchecked Sendable {
    // Safe: `blocks` is only touched while `lock` is held.
    private let lock = NSLock()
    private var blocks: [String] = []

    func append(_ text: String) { lock.withLock { blocks.append(text) } }
    var all: [String] { lock.withLock { blocks } }
}
