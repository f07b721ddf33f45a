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

    /// Runs `warmUp` (so that the sessions, threads and buffers of a first transfer exist), resets the peak,
    /// runs `measured`, then prints the lines `measured` returned and `GROWTH <KiB>`: the peak resident size
    /// during `measured` over the resident size just before it. `ERROR <error>` when either throws.
    static func printGrowth(warmUp: () async throws -> Void, during measured: () async throws -> [String]) async {
        do {
            try await warmUp()
        } catch {
            print("ERROR warm-up: \(error)")
            return
        }
        guard resetPeak(), let before = kibibytes("VmRSS") else {
            print("ERROR cannot reset or read the peak resident size (/proc/self)")
            return
        }
        do {
            let lines = try await measured()
            let growth = (kibibytes("VmHWM") ?? 0) - before
            print((lines + ["GROWTH \(growth)"]).joined(separator: "\n"))
        } catch {
            print("ERROR \(error)")
        }
    }
}
