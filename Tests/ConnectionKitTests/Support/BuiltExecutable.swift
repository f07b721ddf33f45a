import Foundation

/// The executables `swift build` / `swift test` put beside the test bundle (the child processes some
/// tests start: `ChildProcessHelper`, `OfflineQueueCrashHelper`).
enum BuiltExecutable {
    /// The executable called `name` beside this test process, or `nil` when it was not built.
    static func url(named name: String) -> URL? {
        let candidates = [
            URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath(),
            URL(fileURLWithPath: CommandLine.arguments.first ?? "").resolvingSymlinksInPath(),
            Bundle.main.executableURL?.resolvingSymlinksInPath(),
        ].compactMap { $0 }
        for candidate in candidates {
            var folder = candidate.deletingLastPathComponent()
            // Inside an `.xctest` bundle on Apple platforms the executable is nested deeper.
            for _ in 0..<4 {
                let executable = folder.appendingPathComponent(name)
                if FileManager.default.isExecutableFile(atPath: executable.path) { return executable }
                folder = folder.deletingLastPathComponent()
            }
        }
        return nil
    }
}
