import Foundation

/// This process's memory, from `/proc/self/status` (Linux).
enum ProcessMemory {
    /// Peak resident set size so far (`VmHWM`) in MiB, or `nil` where `/proc` does not exist.
    static func peakResidentMiB() -> Double? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            let kibibytes = line.split(separator: " ").compactMap { Double($0) }.first
            return kibibytes.map { $0 / 1024 }
        }
        return nil
    }
}
