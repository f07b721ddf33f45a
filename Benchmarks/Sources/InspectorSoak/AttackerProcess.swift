import Foundation

/// The abusive connections run in a child process (this program with `attack PORT COUNT`), so that
/// their own CPU is not the app process's: what the app process spends more is the inspector's doing.
/// The child attacks until its standard input closes, then prints the bytes it sent and its connections.
/// Given no port, the child attacks a ``Decoy`` of its own, whose port it prints first.
final class AttackerProcess {
    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    /// The port under attack: the one given, or the child's decoy.
    private(set) var port = 0

    init(port: Int?, connections: Int) throws {
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe")
        if !FileManager.default.fileExists(atPath: "/proc/self/exe") {
            process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        }
        process.arguments = ["attack", port.map(String.init) ?? "decoy", "\(connections)"]
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        self.port = port ?? readDecoyPort()
    }

    /// The first line the child prints when it attacks its decoy: the decoy's port.
    private func readDecoyPort() -> Int {
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while read(output.fileHandleForReading.fileDescriptor, &byte, 1) == 1, byte != 10 { line.append(byte) }
        return Int(String(decoding: line, as: UTF8.self)) ?? 0
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
        let decoyPort = arguments.first == "decoy" ? Decoy.start() : nil
        let port = decoyPort ?? arguments.first.flatMap(Int.init) ?? 0
        if decoyPort != nil {
            // Written straight to the descriptor: the parent waits for this line before anything else.
            let line = Array("\(port)\n".utf8)
            _ = line.withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
        }
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
