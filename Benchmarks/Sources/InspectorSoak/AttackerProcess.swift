import Foundation

/// The abusive connections run in a child process (this program with `attack PORT COUNT`), so that
/// their own CPU is not the app process's: what the app process spends more is the inspector's doing.
/// The child attacks until its standard input closes, then prints the bytes it sent and its connections.
final class AttackerProcess {
    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()

    init(port: Int, connections: Int) throws {
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe")
        if !FileManager.default.fileExists(atPath: "/proc/self/exe") {
            process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        }
        process.arguments = ["attack", "\(port)", "\(connections)"]
        process.standardInput = input
        process.standardOutput = output
        try process.run()
    }

    /// Stops the attack; returns the bytes the child sent, its connections and its CPU seconds.
    func finish() -> (bytes: Int, connections: Int, cpu: Double) {
        let cpuBefore = childrenCPUSeconds()
        try? input.fileHandleForWriting.close()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let numbers = text.split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
        return (numbers.first ?? 0, numbers.dropFirst().first ?? 0, childrenCPUSeconds() - cpuBefore)
    }

    /// The child's side: `arguments` are the port and the number of abusive connections.
    static func runChild(_ arguments: [String]) {
        let port = arguments.first.flatMap(Int.init) ?? 0
        let count = arguments.dropFirst().first.flatMap(Int.init) ?? 0
        let counters = AttackCounters()
        let attackers = DispatchGroup()
        for index in 0..<count {
            let kind = Abuse.allCases[index % Abuse.allCases.count]
            attackers.enter()
            Thread.detachNewThread {
                kind.run(port: port, counters: counters)
                attackers.leave()
            }
        }
        _ = FileHandle.standardInput.readDataToEndOfFile()
        counters.stop()
        attackers.wait()
        let figures = counters.snapshot
        print("\(figures.bytes) \(figures.connections)")
    }

    private func childrenCPUSeconds() -> Double {
        var usage = rusage()
        #if canImport(Glibc)
            getrusage(RUSAGE_CHILDREN.rawValue, &usage)
        #else
            getrusage(RUSAGE_CHILDREN, &usage)
        #endif
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
            + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }
}
