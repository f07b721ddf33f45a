import Foundation

/// This process's resident memory figures from /proc/self (Linux), for the commands that print what one
/// transfer cost: in a process that does only that transfer, its peak is the transfer's alone.
enum PeakMemory {
    /// A field of /proc/self/status (`VmRSS`, `VmHWM`), in KiB.
    static func kibibytes(_ field: String) -> Int64? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix(field + ":") {
            return Int64(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
        }
        return nil
    }

    /// Sets `VmHWM` back to the current resident size, so that the next read of it is the true peak since
    /// now, whenever it happened. Whether the kernel allowed it.
    static func resetPeak() -> Bool {
        guard let handle = FileHandle(forWritingAtPath: "/proc/self/clear_refs") else { return false }
        defer { try? handle.close() }
        return (try? handle.write(contentsOf: Data("5".utf8))) != nil
    }
}
