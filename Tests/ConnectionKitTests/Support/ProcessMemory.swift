import Foundation

/// Reads this process's memory figures from /proc/self/status (Linux).
enum ProcessMemory {
    /// The value of `field` (e.g. `VmRSS`, `VmHWM`) in KiB, or `nil` where /proc is missing.
    static func kibibytes(_ field: String) -> Int64? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix(field + ":") {
            return Int64(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
        }
        return nil
    }

    /// Resets this process's peak resident size (`VmHWM`) to its current resident size, so that the next
    /// read of `VmHWM` is the true peak since now, whenever it happened. Whether the kernel allowed it.
    static func resetPeak() -> Bool {
        guard let handle = FileHandle(forWritingAtPath: "/proc/self/clear_refs") else { return false }
        defer { try? handle.close() }
        do {
            try handle.write(contentsOf: Data("5".utf8))
            return true
        } catch {
            return false
        }
    }
}
